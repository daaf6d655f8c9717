// Copy buttons: <button data-copy-target="input-id" data-copy-status="status-id"> copies the input's value.
(function () {
  "use strict";

  function announce(button, text) {
    var status = document.getElementById(button.getAttribute("data-copy-status"));
    if (status) {
      status.textContent = text;
    }
  }

  // The page may give the words in its reader's language (data-copied, data-copy-failed on the button).
  function said(button, attribute, english) {
    return button.getAttribute(attribute) || english;
  }

  function copy(button) {
    var input = document.getElementById(button.getAttribute("data-copy-target"));
    if (!input) {
      return;
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(
        function () { announce(button, said(button, "data-copied", "Copied to the clipboard.")); },
        function () { input.select(); announce(button, said(button, "data-copy-failed", "Press Ctrl+C to copy.")); }
      );
      return;
    }
    input.select();
    var copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (error) {
      copied = false;
    }
    announce(
      button,
      copied
        ? said(button, "data-copied", "Copied to the clipboard.")
        : said(button, "data-copy-failed", "Press Ctrl+C to copy.")
    );
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy-target]");
    if (button) {
      copy(button);
    }
  });
})();
