// Installed before the page's own scripts (an init script): records what Chromium's
// PerformanceObserver reports while the page loads, for reports/analysis/lab.py to read.
(() => {
  const lab = { lcpUrl: null, shifts: [] };
  Object.defineProperty(window, "__webtoolsLab", { value: lab, enumerable: false });
  const observe = (type, callback) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(callback)).observe({ type, buffered: true });
    } catch (error) {
      // An entry type this Chromium does not know: that metric stays empty.
    }
  };
  observe("largest-contentful-paint", (entry) => {
    lab.lcpUrl = entry.url || null;
  });
  // As Lighthouse: shifts right after an input do not count.
  observe("layout-shift", (entry) => {
    if (!entry.hadRecentInput) lab.shifts.push([entry.startTime, entry.value]);
  });
})();
