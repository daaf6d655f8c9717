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
  let textCharacters = 0;
  let smallCharacters = 0;
  const smallText = [];
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
    // Font size: characters of visible text by their computed size (Lighthouse font-size).
    const characters = node.data.trim().length;
    textCharacters += characters;
    if (parseFloat(style.fontSize) < 12) {
      smallCharacters += characters;
      if (smallText.length < LIMIT) smallText.push({ text: node.data.trim().slice(0, 60), size: style.fontSize });
    }
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

  // Tap targets: axe-core's target-size rule (the one Lighthouse runs), WCAG 2.5.8 AA. A target
  // fails when it is under 24 by 24 CSS pixels and a 24px circle on its centre would touch another
  // target. Like axe, only focusable widgets count, and a target inside a line of text is exempt.
  const WIDGET_ROLES = new Set([
    "button", "checkbox", "combobox", "gridcell", "link", "listbox", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "radio", "scrollbar", "searchbox", "slider", "spinbutton", "switch", "tab",
    "textbox", "treeitem",
  ]);
  const NATIVE_WIDGETS = "a[href], button, input:not([type='hidden']), select, textarea";
  const isWidget = (element) => {
    const role = (element.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (role) return WIDGET_ROLES.has(role);
    return element.matches(NATIVE_WIDGETS);
  };
  const isFocusable = (element) =>
    !element.disabled && (element.matches(NATIVE_WIDGETS) || element.hasAttribute("tabindex"));
  const inTabOrder = (element) => isFocusable(element) && !(parseInt(element.getAttribute("tabindex"), 10) < 0);
  const BLOCKS = ["block", "list-item", "table", "flex", "grid"];
  const isBlock = (node) => {
    const display = getComputedStyle(node).display;
    return BLOCKS.includes(display) || display.startsWith("table-");
  };
  // axe's isInTextBlock(noLengthCompare): the nearest block around the target holds visible text of
  // its own (not of other widgets) on the same line run, between the blocks and <br>s around it.
  const inTextBlock = (element) => {
    if (isBlock(element)) return false;
    let block = element.parentElement;
    while (block && !isBlock(block)) block = block.parentElement;
    if (!block) return false;
    let text = "";
    let state = 0; // 0 before the target, 1 after it, 2 past the next block or <br>
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (state === 2) return;
        if (child.nodeType === Node.TEXT_NODE) {
          text += child.nodeValue;
          continue;
        }
        if (child.nodeType !== Node.ELEMENT_NODE) continue;
        if (child === element) state = 1;
        const blockish = isBlock(child) || child.tagName === "BR" || child.tagName === "HR";
        if (blockish) {
          if (state === 0) text = "";
          else state = 2;
        }
        if (blockish || !visible(child) || isWidget(child)) continue;
        walk(child);
      }
    };
    walk(block);
    return text.trim().length > 0;
  };
  const candidates = [...document.querySelectorAll(`${NATIVE_WIDGETS}, [role], [tabindex]`)]
    .filter((element) => isWidget(element) && isFocusable(element) && !(element instanceof SVGElement) && visible(element))
    .slice(0, 5000);
  const rectsOf = (element) =>
    getComputedStyle(element).display === "inline" ? [...element.getClientRects()] : [element.getBoundingClientRect()];
  const centreOf = (rect) => ({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
  const bigEnough = (rect) => rect.width >= 24 && rect.height >= 24;
  const destination = (element) => {
    if (element.tagName !== "A" || !element.getAttribute("href")?.trim()) return null;
    const href = element.href;
    return href.startsWith("javascript:") || href.endsWith("#") ? null : href;
  };
  // Half the distance axe measures between a target and a neighbour (its getOffset).
  const offset = (rects, other) => {
    const otherRects = rectsOf(other);
    const otherBox = other.getBoundingClientRect();
    let distance = Infinity;
    for (const rect of rects) {
      const c = centreOf(rect);
      for (const r of otherRects) {
        const dx = Math.max(r.left - c.x, 0, c.x - r.right);
        const dy = Math.max(r.top - c.y, 0, c.y - r.bottom);
        distance = Math.min(distance, Math.hypot(dx, dy));
      }
      if (!bigEnough(otherBox)) {
        const o = centreOf(otherBox);
        distance = Math.max(0, Math.min(distance, Math.hypot(c.x - o.x, c.y - o.y) - 12));
      }
    }
    return distance;
  };
  const targets = candidates.filter(
    (element) =>
      (inTabOrder(element) || !candidates.some((other) => other !== element && other.contains(element) && inTabOrder(other))) &&
      !inTextBlock(element),
  );
  const tapFailures = [];
  let failing = 0;
  for (const element of targets) {
    const box = element.getBoundingClientRect();
    // Too small, but only a failure for a target in the tab order next to another (axe: otherwise "incomplete").
    if (bigEnough(box) || !inTabOrder(element)) continue;
    const rects = rectsOf(element);
    const mine = destination(element);
    const crowded = candidates.some(
      (other) =>
        other !== element &&
        inTabOrder(other) &&
        !other.contains(element) &&
        !element.contains(other) &&
        !(mine && destination(other) === mine) &&
        Math.round(offset(rects, other) * 10) / 10 * 2 + 0.05 < 24,
    );
    if (crowded) {
      failing += 1;
      if (tapFailures.length < LIMIT) {
        tapFailures.push({ target: describe(element), size: `${Math.round(box.width)}x${Math.round(box.height)}` });
      }
    }
  }

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

  // Controls the stylesheets hide (display:none, visibility:hidden) are marked for the HTML checks
  // (html.py), which read the serialised document and no CSS: axe skips them too.
  for (const control of document.querySelectorAll("input, select, textarea, button, [role='button']")) {
    if (!control.checkVisibility({ visibilityProperty: true })) control.setAttribute("data-webtools-unrendered", "");
  }

  return {
    color_contrast: { value: { text_elements: textElements }, failures: contrastFailures },
    tap_targets: { value: { targets: targets.length, failing }, failures: tapFailures },
    image_aspect_ratio: { value: { images }, failures: ratioFailures },
    font_size: {
      value: {
        characters: textCharacters,
        legible_share: textCharacters ? Math.round((1000 * (textCharacters - smallCharacters)) / textCharacters) / 10 : 100,
      },
      // Lighthouse fails a page when under 60 % of its text is 12px or larger.
      failures: textCharacters && smallCharacters / textCharacters > 0.4 ? smallText : [],
    },
    dom_nodes: document.getElementsByTagName("*").length,
  };
}
