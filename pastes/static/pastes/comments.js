// The discussion under an end-to-end encrypted paste (pastes/README.md, "Discussions"): each comment is
// encrypted with the paste's own key (from the link's #key=…) before it is posted, and decrypted here;
// the server stores only envelopes. Needs pastes/e2e.js, loaded before this file.
(function () {
  "use strict";

  var e2e = window.pastesE2E;
  var section = document.querySelector("[data-e2e-discussion]");
  if (!e2e || !section) {
    return;
  }
  // The words come from the page (pastes/templates/pastes/e2e_texts.html), in the reader's language.
  var texts = (document.getElementById("e2e-texts") || document.createElement("div")).dataset;
  var NO_KEY = texts.commentNoKey || "This link has no key (#key=…), so comments can be neither read nor written.";
  var WRONG_KEY = texts.commentWrongKey || "The key in this link does not decrypt this comment.";

  function showComments() {
    var rawKey = e2e.keyFromLink();
    section.querySelectorAll("[data-e2e-comment]").forEach(function (holder) {
      var envelope = e2e.parseEnvelope(holder.getAttribute("data-e2e-comment"));
      if (!rawKey || !envelope || !e2e.available()) {
        holder.textContent = NO_KEY;
        return;
      }
      e2e.decrypt(envelope, rawKey).then(
        function (text) {
          holder.textContent = text;
          holder.classList.add("decrypted");
        },
        function () {
          holder.textContent = WRONG_KEY;
        }
      );
    });
  }

  function setUpForm(form) {
    var sealed = false;
    form.addEventListener("submit", function (event) {
      if (sealed) {
        return;
      }
      event.preventDefault();
      var rawKey = e2e.keyFromLink();
      var text = form.querySelector("textarea[name=text]");
      if (!rawKey || !e2e.available()) {
        text.setCustomValidity(NO_KEY);
        text.reportValidity();
        return;
      }
      e2e.encrypt(text.value.replace(/\r\n/g, "\n"), rawKey).then(function (envelope) {
        // The envelope goes in a hidden field, so the typed text never leaves the browser.
        var hidden = document.createElement("input");
        hidden.type = "hidden";
        hidden.name = "text";
        hidden.value = envelope;
        text.removeAttribute("name");
        form.appendChild(hidden);
        // The fragment rides along: the redirect back to the paste keeps it, so the page can decrypt again.
        form.action = form.action.split("#")[0] + "#key=" + rawKey;
        sealed = true;
        form.submit();
      });
    });
    form.querySelector("textarea[name=text]").addEventListener("input", function (event) {
      event.target.setCustomValidity("");
    });
  }

  showComments();
  window.addEventListener("hashchange", showComments);
  section.querySelectorAll("[data-e2e-comment-form]").forEach(setUpForm);
})();
