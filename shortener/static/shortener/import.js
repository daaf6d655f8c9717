// Import progress: the form posts the file as usual, and meanwhile this asks the server
// how many lines it has done (GET <import url>/<key>, the key being made up here). Its words come
// translated from the page: the form's data-sending and data-progress ({done}, {total}, …).
(function () {
  "use strict";

  function randomKey() {
    if (window.crypto && window.crypto.randomUUID) {
      return window.crypto.randomUUID();
    }
    return String(Date.now()) + "-" + String(Math.random()).slice(2);
  }

  function watch(form, url) {
    var box = form.querySelector(".import-progress");
    var bar = box.querySelector("progress");
    var text = box.querySelector("span");
    box.hidden = false;
    text.textContent = form.getAttribute("data-sending");
    function poll() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (data && data.total) {
            bar.max = data.total;
            bar.value = data.done;
            text.textContent = form.getAttribute("data-progress").replace(/\{(done|total|created|refused)\}/g, function (match, name) {
              return String(data[name]);
            });
          }
          if (!data || !data.finished) {
            window.setTimeout(poll, 700);
          }
        })
        .catch(function () { window.setTimeout(poll, 1500); });
    }
    window.setTimeout(poll, 500);
  }

  document.querySelectorAll("form.import-form").forEach(function (form) {
    form.addEventListener("submit", function () {
      var key = randomKey();
      form.querySelector("input[name=progress]").value = key;
      watch(form, form.getAttribute("data-progress-url") + encodeURIComponent(key));
    });
  });
})();
