// Copy buttons: <button data-copy-target="input-id" data-copy-status="status-id"> copies the input's value.
// What it then says comes translated from the page: the button's data-copied and data-copy-failed
// (English when a page gives none).
(function () {
  "use strict";

  function announce(button, text) {
    var status = document.getElementById(button.getAttribute("data-copy-status"));
    if (status) {
      status.textContent = text;
    }
  }

  function copied(button) {
    return button.getAttribute("data-copied") || "Copied to the clipboard.";
  }

  function failed(button) {
    return button.getAttribute("data-copy-failed") || "Press Ctrl+C to copy.";
  }

  function copy(button) {
    var input = document.getElementById(button.getAttribute("data-copy-target"));
    if (!input) {
      return;
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(
        function () { announce(button, copied(button)); },
        function () { input.select(); announce(button, failed(button)); }
      );
      return;
    }
    input.select();
    var done = false;
    try {
      done = document.execCommand("copy");
    } catch (error) {
      done = false;
    }
    announce(button, done ? copied(button) : failed(button));
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy-target]");
    if (button) {
      copy(button);
    }
  });
})();
