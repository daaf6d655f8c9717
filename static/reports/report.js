// The report page's "Print or save as PDF" button (shown only when this script runs); the print
// stylesheet (static/reports/print.css) lays the report out for paper.
(() => {
  "use strict";
  for (const button of document.querySelectorAll("[data-print]")) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
})();

// The checks' filter by category and importance. Without this script it is a GET form that the
// server answers with the checks asked for; with it, the page shows them without reloading and
// keeps the choice in the address (so a reload or a shared link shows the same).
(() => {
  "use strict";
  const form = document.querySelector("[data-check-filter]");
  if (!form) return;
  const category = form.querySelector('[data-filter="category"]');
  const importance = form.querySelector('[data-filter="importance"]');
  const submit = form.querySelector("[data-filter-submit]");
  const failedCount = form.querySelector("[data-failed-count]");
  const passedCount = form.querySelector("[data-passed-count]");
  const sections = Array.from(document.querySelectorAll("[data-category]"));
  // The server may have left checks out (a filtered first load): then the whole list is a reload away.
  const complete = !new URLSearchParams(window.location.search).has("importance") &&
    !new URLSearchParams(window.location.search).has("category");
  if (!complete) return;
  submit.hidden = true;

  function apply() {
    let failed = 0;
    let passed = 0;
    for (const section of sections) {
      const showSection = !category.value || section.dataset.category === category.value;
      section.hidden = !showSection;
      let sectionFailed = 0;
      let sectionPassed = 0;
      for (const row of section.querySelectorAll("tr[data-check]")) {
        const show = showSection && (!importance.value || row.dataset.importance === importance.value);
        row.hidden = !show;
        if (show && row.classList.contains("check-failed")) sectionFailed += 1;
        if (show && row.classList.contains("check-passed")) sectionPassed += 1;
      }
      section.querySelector("[data-failed-checks]").hidden = sectionFailed === 0;
      section.querySelector("[data-nothing-failed]").hidden = sectionFailed > 0;
      section.querySelector("[data-passed-checks]").hidden = sectionPassed === 0;
      section.querySelector("[data-passed-summary]").textContent = String(sectionPassed);
      if (showSection) {
        failed += sectionFailed;
        passed += sectionPassed;
      }
    }
    failedCount.textContent = String(failed);
    passedCount.textContent = String(passed);
    const params = new URLSearchParams();
    if (category.value) params.set("category", category.value);
    if (importance.value) params.set("importance", importance.value);
    const query = params.toString();
    window.history.replaceState(null, "", query ? `?${query}` : window.location.pathname);
  }

  category.addEventListener("change", apply);
  importance.addEventListener("change", apply);
})();
