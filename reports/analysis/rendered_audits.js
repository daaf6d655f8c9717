// The checks that need layout, run in the rendered page by rendering.py.
// Each returns {value, failures}; the thresholds are named in checks/accessibility.py.
() => {
  const LIMIT = 50;
  const visible = (element) => {
    const style = getComputedStyle(element);
    if (style.display === "none" || style.visibility !== "visible" || parseFloat(style.opacity) === 0) return false;
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  const describe = (element) => {
    const text = (element.innerText || element.getAttribute("aria-label") || element.getAttribute("alt") || "").trim();
    return `<${element.tagName.toLowerCase()}>${text ? " " + text.slice(0, 60) : ""}`;
  };

  // Colour contrast: WCAG 2.x relative luminance of the text colour over the background it sits on.
  const parseColor = (value) => {
    const match = /rgba?\(([^)]+)\)/.exec(value || "");
    if (!match) return null;
    const parts = match[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  };
  const luminance = (color) => {
    const channel = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(color[0]) + 0.7152 * channel(color[1]) + 0.0722 * channel(color[2]);
  };
  const backgroundOf = (element) => {
    const layers = [];
    for (let node = element; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.backgroundImage !== "none") return null; // text over an image: not judged
      const color = parseColor(style.backgroundColor);
      if (color && color[3] > 0) {
        layers.push(color);
        if (color[3] >= 1) break;
      }
    }
    return layers.reduceRight((below, layer) => over(layer, below), [255, 255, 255, 1]);
  };
  const contrastFailures = [];
  let textElements = 0;
  const seen = new Set();
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const element = node.parentElement;
    if (!node.data.trim() || !element || seen.has(element)) continue;
    seen.add(element);
    if (element.closest("script, style, noscript, template, [aria-hidden='true']") || !visible(element)) continue;
    const style = getComputedStyle(element);
    const background = backgroundOf(element);
    const foreground = parseColor(style.color);
    if (!background || !foreground) continue;
    const text = over(foreground, background);
    const [lighter, darker] = [luminance(text), luminance(background)].sort((a, b) => b - a);
    const ratio = (lighter + 0.05) / (darker + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (parseInt(style.fontWeight, 10) >= 700 && size >= 18.66);
    const required = large ? 3 : 4.5;
    textElements += 1;
    if (ratio < required - 0.005 && contrastFailures.length < LIMIT) {
      contrastFailures.push({
        text: node.data.trim().slice(0, 60),
        ratio: Math.round(ratio * 100) / 100,
        required,
        color: style.color,
        background: `rgb(${background.slice(0, 3).map(Math.round).join(", ")})`,
      });
    }
  }

  // Tap targets: WCAG 2.5.8, 24 by 24 CSS pixels, or a 24px circle around the target touching no other.
  const targets = [
    ...document.querySelectorAll("a[href], button, input:not([type='hidden']), select, textarea, [role='button']"),
  ]
    .filter(visible)
    .slice(0, 600);
  const boxes = targets.map((element) => element.getBoundingClientRect());
  const inSentence = (element) =>
    getComputedStyle(element).display === "inline" &&
    (element.parentElement?.innerText || "").trim().length > (element.innerText || "").trim().length + 10;
  const tapFailures = [];
  targets.forEach((element, i) => {
    const box = boxes[i];
    if ((box.width >= 24 && box.height >= 24) || inSentence(element)) return;
    const cx = box.left + box.width / 2;
    const cy = box.top + box.height / 2;
    const crowded = boxes.some((other, j) => {
      if (j === i || targets[j].contains(element) || element.contains(targets[j])) return false;
      const dx = Math.max(other.left - cx, 0, cx - other.right);
      const dy = Math.max(other.top - cy, 0, cy - other.bottom);
      return Math.hypot(dx, dy) < 12;
    });
    if (crowded && tapFailures.length < LIMIT) {
      tapFailures.push({ target: describe(element), size: `${Math.round(box.width)}x${Math.round(box.height)}` });
    }
  });

  // Image aspect ratio: as displayed versus the file's own, beyond 5 % (Lighthouse image-aspect-ratio).
  const ratioFailures = [];
  let images = 0;
  for (const image of document.images) {
    if (!image.complete || !image.naturalWidth || !visible(image)) continue;
    const fit = getComputedStyle(image).objectFit;
    if (fit === "cover" || fit === "contain" || fit === "scale-down") continue;
    images += 1;
    const box = image.getBoundingClientRect();
    const shown = box.width / box.height;
    const natural = image.naturalWidth / image.naturalHeight;
    if (Math.abs(shown / natural - 1) > 0.05 && box.width > 5 && ratioFailures.length < LIMIT) {
      ratioFailures.push({
        url: image.currentSrc || image.src,
        displayed: `${Math.round(box.width)}x${Math.round(box.height)}`,
        natural: `${image.naturalWidth}x${image.naturalHeight}`,
      });
    }
  }

  return {
    color_contrast: { value: { text_elements: textElements }, failures: contrastFailures },
    tap_targets: { value: { targets: targets.length }, failures: tapFailures },
    image_aspect_ratio: { value: { images }, failures: ratioFailures },
    dom_nodes: document.getElementsByTagName("*").length,
  };
}
