// The paste form's "Add another file" (issue 47): adds a filename and a content field in the page,
// named as the server expects (filename_N, content_N). Without JavaScript the button posts the
// form back and the server adds the slot, which is the same form.
(function () {
  "use strict";

  document.querySelectorAll("[data-add-file]").forEach(function (button) {
    button.addEventListener("click", function (event) {
      event.preventDefault();
      var form = button.form;
      var number = 2;
      while (form.elements["content_" + number]) {
        number++;
      }
      if (number > 20) {
        button.disabled = true;
        return;
      }
      var anchor = form.querySelector(".field-filename");
      var last = form.elements["content_" + (number - 1)];
      var after = last ? last.closest(".field") : anchor;
      [
        { name: "filename_" + number, label: button.dataset.filenameLabel.replace("{n}", number), tag: "input" },
        { name: "content_" + number, label: button.dataset.contentLabel.replace("{n}", number), tag: "textarea" },
      ].forEach(function (spec) {
        var field = document.createElement("div");
        field.className = "field field-" + spec.name;
        var label = document.createElement("label");
        label.htmlFor = "id_" + spec.name;
        label.textContent = spec.label;
        var input = document.createElement(spec.tag);
        input.id = "id_" + spec.name;
        input.name = spec.name;
        input.setAttribute("data-e2e-sealed", "");
        if (spec.tag === "input") {
          input.type = "text";
          input.autocomplete = "off";
        } else {
          input.rows = 10;
          input.spellcheck = false;
        }
        field.appendChild(label);
        field.appendChild(input);
        after.after(field);
        after = field;
      });
      form.elements["filename_" + number].focus();
    });
  });
})();
