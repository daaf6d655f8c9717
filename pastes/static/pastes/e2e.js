// End-to-end encrypted pastes (pastes/README.md, "Encrypted pastes"): AES-GCM with a 256-bit key
// that lives only in the link's fragment (#key=…), which browsers never send to a server.
// The paste's content is the envelope {"v":1,"alg":"AES-GCM-256","iv":…,"ct":…} (base64url).
(function () {
  "use strict";

  var VERSION = 1;
  var ALGORITHM = "AES-GCM-256";

  function toBase64url(bytes) {
    var text = "";
    for (var i = 0; i < bytes.length; i++) {
      text += String.fromCharCode(bytes[i]);
    }
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromBase64url(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) {
      base64 += "=";
    }
    var binary = atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) {
      bytes[i] = binary.charCodeAt(i);
    }
    return bytes;
  }

  function keyFromLink() {
    var key = new URLSearchParams(window.location.hash.slice(1)).get("key");
    return key || null;
  }

  function available() {
    return Boolean(window.crypto && window.crypto.subtle);
  }

  function importKey(rawKey) {
    return window.crypto.subtle.importKey("raw", fromBase64url(rawKey), { name: "AES-GCM" }, false, [
      "encrypt",
      "decrypt",
    ]);
  }

  function newKey() {
    return toBase64url(window.crypto.getRandomValues(new Uint8Array(32)));
  }

  function encrypt(text, rawKey) {
    var iv = window.crypto.getRandomValues(new Uint8Array(12));
    return importKey(rawKey)
      .then(function (key) {
        return window.crypto.subtle.encrypt({ name: "AES-GCM", iv: iv }, key, new TextEncoder().encode(text));
      })
      .then(function (ciphertext) {
        return JSON.stringify({ v: VERSION, alg: ALGORITHM, iv: toBase64url(iv), ct: toBase64url(new Uint8Array(ciphertext)) });
      });
  }

  function parseEnvelope(content) {
    try {
      var envelope = JSON.parse(content);
      if (envelope && envelope.v === VERSION && envelope.alg === ALGORITHM && envelope.iv && envelope.ct) {
        return envelope;
      }
    } catch (error) {
      // not an envelope
    }
    return null;
  }

  function decrypt(envelope, rawKey) {
    return importKey(rawKey)
      .then(function (key) {
        return window.crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64url(envelope.iv) }, key, fromBase64url(envelope.ct));
      })
      .then(function (plaintext) {
        return new TextDecoder("utf-8", { fatal: true }).decode(plaintext);
      });
  }

  // Links that lead on with the paste (Edit, Fork, Cancel) keep the key, so the next page can decrypt too.
  function keepKeyOnLinks(rawKey) {
    document.querySelectorAll("[data-e2e-keep-key]").forEach(function (link) {
      link.href = link.href.split("#")[0] + "#key=" + rawKey;
    });
  }

  // The words come from the page (pastes/templates/pastes/e2e_texts.html), in the reader's language.
  var texts = (document.getElementById("e2e-texts") || document.createElement("div")).dataset;
  var MISSING_KEY = texts.missingKey ||
    "This paste is end-to-end encrypted, and this link has no key (the part after #key=): ask whoever sent it for the whole link.";
  var WRONG_KEY = texts.wrongKey ||
    "The key in this link does not decrypt this paste: the link may be cut short or altered. Ask for the whole link.";
  var NO_CRYPTO = texts.noCrypto ||
    "Your browser offers no Web Cryptography here (it needs HTTPS or localhost), so it cannot decrypt this paste.";
  var DECRYPTED = texts.decrypted || "Decrypted in your browser with the key in the link; the server never had it.";
  var DECRYPTED_FORM = texts.decryptedForm || "Decrypted in your browser with the key in the link.";
  var REPLACES = texts.replaces || "What you type replaces the encrypted text.";

  function showPaste(holder) {
    var status = document.getElementById("e2e-status");
    var envelope = parseEnvelope(JSON.parse(holder.textContent));
    var rawKey = keyFromLink();
    var plain = document.getElementById("e2e-plain");
    var download = document.querySelector("[data-e2e-download]");
    function fail(message) {
      status.textContent = message;
      status.setAttribute("role", "alert");
      status.classList.add("error");
      plain.textContent = "";
      plain.parentElement.hidden = true;
      if (download) {
        download.hidden = true;
      }
    }
    if (!available()) {
      return fail(NO_CRYPTO);
    }
    if (!rawKey) {
      return fail(MISSING_KEY);
    }
    keepKeyOnLinks(rawKey);
    decrypt(envelope, rawKey).then(
      function (text) {
        plain.textContent = text;
        plain.parentElement.hidden = false;
        document.getElementById("paste-content").value = text;
        status.textContent = DECRYPTED;
        status.setAttribute("role", "status");
        status.classList.remove("error");
        if (download) {
          download.href = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
          download.hidden = false;
        }
      },
      function () {
        fail(WRONG_KEY);
      }
    );
  }

  function setUpForm(form) {
    var checkbox = form.querySelector("input[name=encrypted]");
    var content = form.querySelector("textarea[name=content]");
    var note = document.getElementById("e2e-note");
    if (!checkbox || !content) {
      return;
    }
    var rawKey = keyFromLink();
    var envelope = checkbox.checked ? parseEnvelope(content.value) : null;
    if (envelope) {
      // Editing or forking an encrypted paste, or the form came back with an error: show the text.
      if (rawKey && available()) {
        decrypt(envelope, rawKey).then(
          function (text) {
            content.value = text;
            note.textContent = DECRYPTED_FORM;
          },
          function () {
            note.textContent = WRONG_KEY + " " + REPLACES;
          }
        );
      } else {
        note.textContent = MISSING_KEY + " " + REPLACES;
      }
    }
    // Several files (issue 47): every filename and every other file's content is sealed too.
    function sealedFields() {
      return Array.prototype.filter.call(form.querySelectorAll("[data-e2e-sealed]"), function (field) {
        return field.value !== "";
      });
    }
    if (checkbox.checked && rawKey && available()) {
      sealedFields().forEach(function (field) {
        var sealed = parseEnvelope(field.value);
        if (sealed) {
          decrypt(sealed, rawKey).then(function (text) {
            field.value = text;
          });
        }
      });
    }
    var sending = false;
    form.addEventListener("submit", function (event) {
      if (!checkbox.checked || sending || (event.submitter && event.submitter.hasAttribute("data-add-file"))) {
        return;
      }
      event.preventDefault();
      if (!available()) {
        note.textContent = NO_CRYPTO;
        return;
      }
      // An edit keeps the paste's key, so links already shared still open it; a new paste or a fork gets its own.
      var key = form.hasAttribute("data-e2e-reuse-key") && rawKey ? rawKey : newKey();
      var fields = [content].concat(sealedFields());
      Promise.all(
        fields.map(function (field) {
          return encrypt(field.value, key);
        })
      ).then(function (sealed) {
        fields.forEach(function (field, index) {
          field.value = sealed[index];
        });
        // Only the fragment of the form's address carries the key: the server's redirect keeps it.
        form.action = form.action.split("#")[0] + "#key=" + key;
        sending = true;
        form.submit();
      });
    });
  }

  // A many-file paste's page (issue 47): each file's name and content decrypted in its own section.
  function showFiles(sections) {
    var status = document.getElementById("e2e-status");
    var rawKey = keyFromLink();
    function fail(message) {
      status.textContent = message;
      status.setAttribute("role", "alert");
      status.classList.add("error");
    }
    if (!available()) {
      return fail(NO_CRYPTO);
    }
    if (!rawKey) {
      return fail(MISSING_KEY);
    }
    keepKeyOnLinks(rawKey);
    Promise.all(
      Array.prototype.map.call(sections, function (section) {
        var content = parseEnvelope(JSON.parse(document.getElementById(section.dataset.envelope).textContent));
        var filename = parseEnvelope(JSON.parse(document.getElementById(section.dataset.filenameEnvelope).textContent));
        return Promise.all([decrypt(filename, rawKey), decrypt(content, rawKey)]).then(function (texts) {
          section.querySelector("[data-e2e-filename]").textContent = texts[0];
          var plain = section.querySelector("[data-e2e-plain]");
          plain.textContent = texts[1];
          plain.parentElement.hidden = false;
          return texts[1];
        });
      })
    ).then(
      function (texts) {
        document.getElementById("paste-content").value = texts[0];
        status.textContent = DECRYPTED;
        status.setAttribute("role", "status");
        status.classList.remove("error");
      },
      function () {
        fail(WRONG_KEY);
      }
    );
  }

  var fileSections = document.querySelectorAll("[data-e2e-file]");
  if (fileSections.length) {
    showFiles(fileSections);
  }

  var holder = document.getElementById("paste-envelope");
  if (holder) {
    showPaste(holder);
    // A key pasted into the address bar afterwards changes only the fragment: no reload, so try again.
    window.addEventListener("hashchange", function () {
      showPaste(holder);
    });
  }
  document.querySelectorAll("[data-e2e-form]").forEach(setUpForm);
  // For the discussion under an encrypted paste (pastes/static/pastes/comments.js): the same key and format.
  window.pastesE2E = { available: available, keyFromLink: keyFromLink, encrypt: encrypt, decrypt: decrypt, parseEnvelope: parseEnvelope };
})();
