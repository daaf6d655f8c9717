// The report page's "Print or save as PDF" button (shown only when this script runs); the print
// stylesheet (static/reports/print.css) lays the report out for paper.
(() => {
  "use strict";
  for (const button of document.querySelectorAll("[data-print]")) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
})();
