// The analysis progress page (reports/report_progress.html): poll the report's JSON status and show each
// state as it comes (queued, running, done or failed); once done, go to the report page.
(() => {
  "use strict";
  const root = document.querySelector("[data-status-url]");
  if (!root) return;
  const statusUrl = root.dataset.statusUrl;
  const steps = Array.from(root.querySelectorAll("[data-step]"));
  const text = root.querySelector("[data-status-text]");
  const failure = root.querySelector("[data-failure]");
  const failureText = root.querySelector("[data-failure-text]");
  const heading = root.querySelector("[data-heading]");
  const INTERVAL_MS = 1000;
  const MAX_INTERVAL_MS = 15000;
  let interval = INTERVAL_MS;

  function show(data) {
    root.dataset.status = data.status;
    const reached = steps.findIndex((step) => step.dataset.step === data.status);
    steps.forEach((step, index) => {
      step.classList.toggle("is-done", reached >= 0 && index < reached);
      step.classList.toggle("is-current", index === reached);
    });
    text.textContent = data.text;
    if (data.status === "failed") {
      // The heading says it failed and the alert gives the cause: the status line would repeat them.
      // In the page's language: the template gives both texts.
      heading.textContent = root.dataset.failedHeading;
      document.title = root.dataset.failedTitle;
      text.hidden = true;
      failureText.textContent = data.error || "";
      failure.hidden = false;
    }
  }

  function poll() {
    fetch(statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then((data) => {
        interval = INTERVAL_MS;
        show(data);
        if (data.status === "done") window.location.assign(data.report_url);
        else if (data.status !== "failed") window.setTimeout(poll, interval);
      })
      .catch(() => {
        // The server or the network is away for a moment: keep trying, less often.
        interval = Math.min(interval * 2, MAX_INTERVAL_MS);
        window.setTimeout(poll, interval);
      });
  }

  if (root.dataset.status !== "failed") window.setTimeout(poll, INTERVAL_MS);
})();
