// Attachments of end-to-end encrypted pastes (pastes/README.md, "Attachments"): the file is encrypted
// here with the paste's key from the link's #key=…, before it leaves the browser, and decrypted here
// when it is downloaded. Stored bytes: a random 12-byte IV followed by AES-GCM's output (ciphertext and
// 16-byte tag) over the file's bytes, with no additional data. The filename is sealed as the content
// is (e2e.js's envelope, under the same key) and opened on the page.
(function () {
  "use strict";

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

  function pasteKey() {
    var key = new URLSearchParams(window.location.hash.slice(1)).get("key");
    if (!key || !(window.crypto && window.crypto.subtle)) {
      return Promise.reject(new Error("no key"));
    }
    return window.crypto.subtle.importKey("raw", fromBase64url(key), { name: "AES-GCM" }, false, [
      "encrypt",
      "decrypt",
    ]);
  }

  // The name as an envelope under the paste's key, shortened (its extension kept) until the envelope
  // fits the server's 255 characters. e2e.js is read at submit time: it runs after this script.
  function sealedName(name, rawKey) {
    var e2e = window.pastesE2E;
    return e2e.encrypt(name, rawKey).then(function (envelope) {
      if (envelope.length <= 255 || name.length <= 8) {
        return envelope;
      }
      var dot = name.lastIndexOf(".");
      var extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : "";
      var stem = name.slice(0, name.length - extension.length);
      return sealedName(stem.slice(0, Math.max(1, stem.length - 10)) + "…" + extension, rawKey);
    });
  }

  // Every sealed name on the page (the download link, the Remove button's label), opened with the key.
  function openNames() {
    var e2e = window.pastesE2E;
    var rawKey = e2e && e2e.keyFromLink();
    if (!rawKey) {
      return;
    }
    document.querySelectorAll("[data-e2e-name]").forEach(function (element) {
      var envelope = e2e.parseEnvelope(element.getAttribute("data-e2e-name"));
      if (!envelope) {
        return;
      }
      e2e.decrypt(envelope, rawKey).then(function (name) {
        element.textContent = name;
        if (element.hasAttribute("data-filename")) {
          element.setAttribute("data-filename", name);
        }
      });
    });
  }

  function say(status, text) {
    if (status) {
      status.textContent = text;
    }
  }

  function setUpForm(form) {
    var status = document.getElementById(form.getAttribute("data-e2e-attach"));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var file = form.querySelector("input[type=file]").files[0];
      if (!file) {
        return;
      }
      var iv = window.crypto.getRandomValues(new Uint8Array(12));
      say(status, status.getAttribute("data-working"));
      var rawKey = window.pastesE2E && window.pastesE2E.keyFromLink();
      Promise.all([pasteKey(), file.arrayBuffer(), rawKey ? sealedName(file.name, rawKey) : Promise.reject(new Error("no key"))])
        .then(function (parts) {
          return Promise.all([window.crypto.subtle.encrypt({ name: "AES-GCM", iv: iv }, parts[0], parts[1]), parts[2]]);
        })
        .then(function (parts) {
          var ciphertext = parts[0];
          var sealed = new Uint8Array(12 + ciphertext.byteLength);
          sealed.set(iv, 0);
          sealed.set(new Uint8Array(ciphertext), 12);
          var body = new FormData();
          body.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
          body.append("filename", parts[1]);
          body.append("file", new File([sealed], "sealed", { type: "application/octet-stream" }));
          // Not following the redirect: the page it leads to would use up the message saying how it went.
          return fetch(form.action, { method: "POST", body: body, credentials: "same-origin", redirect: "manual" });
        })
        .then(function () {
          window.location.reload(); // the page says how it went; the #key stays in the address
        })
        .catch(function () {
          say(status, status.getAttribute("data-failed"));
        });
    });
  }

  function setUpDownload(link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      var status = document.getElementById("e2e-attachment-status");
      Promise.all([pasteKey(), fetch(link.href, { credentials: "same-origin" }).then(function (r) {
        if (!r.ok) {
          throw new Error(String(r.status));
        }
        return r.arrayBuffer();
      })])
        .then(function (parts) {
          var sealed = new Uint8Array(parts[1]);
          return window.crypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.slice(0, 12) }, parts[0], sealed.slice(12));
        })
        .then(function (plaintext) {
          var url = URL.createObjectURL(new Blob([plaintext], { type: "application/octet-stream" }));
          var save = document.createElement("a");
          save.href = url;
          save.download = link.getAttribute("data-filename");
          document.body.appendChild(save);
          save.click();
          save.remove();
          setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
        })
        .catch(function () {
          say(status, status && status.getAttribute("data-failed"));
        });
    });
  }

  document.querySelectorAll("form[data-e2e-attach]").forEach(setUpForm);
  document.querySelectorAll("a[data-e2e-attachment]").forEach(setUpDownload);
  // After every deferred script, e2e.js included.
  document.addEventListener("DOMContentLoaded", openNames);
})();
