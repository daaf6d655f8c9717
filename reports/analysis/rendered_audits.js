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
  // axe-core's isVisibleOnScreen: what it cannot see on screen it neither judges nor counts as a
  // neighbour (not in its grid). Hidden by the element itself: clipped to nothing, off the page to
  // the left or top, or outside an ancestor that hides its overflow; by any ancestor: display,
  // opacity 0, a clip.
  const CLIP = /rect\s*\(([0-9]+)px,?\s*([0-9]+)px,?\s*([0-9]+)px,?\s*([0-9]+)px\s*\)/;
  const CLIP_PATH = /(\w+)\((\d+)/;
  const clipped = (style) => {
    const clip = CLIP.exec(style.clip);
    if (clip && ["fixed", "absolute"].includes(style.position) && clip[3] - clip[1] <= 0 && clip[2] - clip[4] <= 0) {
      return true;
    }
    const path = CLIP_PATH.exec(style.clipPath);
    return !!path && ((path[1] === "inset" && parseInt(path[2], 10) >= 50) || (path[1] === "circle" && path[2] === "0"));
  };
  const rtl = getComputedStyle(document.body || document.documentElement).direction === "rtl";
  const rightEdge = Math.max(document.documentElement.scrollWidth, innerWidth);
  const offscreen = (element, style) => {
    const box = element.getBoundingClientRect();
    if ((box.top === 0 && box.bottom === 0) || (box.left === 0 && box.right === 0)) return false;
    const fixed = style.position === "fixed";
    const [x, y] = fixed ? [0, 0] : [scrollX, scrollY];
    if (box.bottom + y <= 0 || (fixed && box.top >= innerHeight)) return true;
    return ((fixed || rtl) && box.left + x >= rightEdge) || ((fixed || !rtl) && box.right + x <= 0);
  };
  const positionedBetween = (element, ancestor) => {
    for (let node = element.parentElement; node && node !== ancestor; node = node.parentElement) {
      if (getComputedStyle(node).position !== "static") return true;
    }
    return false;
  };
  // Whether two boxes overlap, or come within `margin` pixels of each other.
  const overlap = (a, b, margin = 0) =>
    a.left < b.right + margin && b.left < a.right + margin && a.top < b.bottom + margin && b.top < a.bottom + margin;
  const outsideOverflow = (element, style) => {
    if (style.position === "fixed") return false;
    const box = element.getBoundingClientRect();
    for (let node = element; node; node = node.parentElement) {
      const nodeStyle = node === element ? style : getComputedStyle(node);
      if (nodeStyle.overflow !== "hidden") continue;
      if (style.position === "absolute" && nodeStyle.position === "static" && !positionedBetween(element, node)) continue;
      const frame = node.getBoundingClientRect();
      if (frame.width < 2 || frame.height < 2 || !overlap(box, frame)) return true;
    }
    return false;
  };
  const onScreenCache = new Map();
  const onScreen = (element) => {
    if (!onScreenCache.has(element)) {
      const style = getComputedStyle(element);
      let shown = element.getClientRects().length > 0 && !clipped(style) && !offscreen(element, style);
      shown = shown && !outsideOverflow(element, style) && !["hidden", "collapse"].includes(style.visibility);
      for (let node = element; shown && node; node = node.parentElement) {
        const nodeStyle = node === element ? style : getComputedStyle(node);
        shown = nodeStyle.opacity !== "0" && (node === element || !clipped(nodeStyle));
      }
      onScreenCache.set(element, shown);
    }
    return onScreenCache.get(element);
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
  // axe's color-contrast-matches: the text of a disabled control, or of a label of one, is not held
  // to contrast (WCAG 1.4.3 exempts inactive components), nor is text of punctuation or emoji alone.
  const DISABLEABLE = new Set(["FIELDSET", "BUTTON", "SELECT", "INPUT", "TEXTAREA"]);
  const disabled = (element) => {
    for (let node = element; node; node = node.parentElement) {
      if (DISABLEABLE.has(node.tagName) && node.hasAttribute("disabled")) return true;
      const aria = (node.getAttribute("aria-disabled") || "").trim();
      if (aria) return aria === "true";
    }
    return false;
  };
  const LABELLED_CONTROL =
    "input:not([type='hidden'], [type='image'], [type='button'], [type='submit'], [type='reset']), select, textarea";
  const labelledBy = new Map();
  for (const control of document.querySelectorAll("[aria-labelledby]")) {
    for (const id of control.getAttribute("aria-labelledby").trim().split(/\s+/)) {
      labelledBy.set(id, [...(labelledBy.get(id) || []), control]);
    }
  }
  const labelsOnlyDisabled = (element) => {
    const label = element.closest("label");
    const control = label && ((label.htmlFor && document.getElementById(label.htmlFor)) || label.querySelector(LABELLED_CONTROL));
    if (control && disabled(control)) return true;
    const controls = [];
    for (let node = element; node; node = node.parentElement) {
      if (node.id && labelledBy.has(node.id)) controls.push(...labelledBy.get(node.id));
    }
    return controls.length > 0 && controls.every(disabled);
  };
  const ownText = (element) =>
    [...element.childNodes]
      .filter((child) => child.nodeType === Node.TEXT_NODE)
      .map((child) => child.data)
      .join("")
      .replace(/\s+/g, " ")
      .trim();
  // axe's punctuation and emoji; whitespace stays, so "| |" is text to judge and "/" is not.
  const PUNCTUATION_OR_EMOJI =
    /[\u2000-\u206F\u2E00-\u2E7F\u3000-\u3004\u3008-\u3020\u3030\u3036-\u3037\u303D-\u303F\u30FB\uFE10-\uFE6F\uFF01-\uFF0F\uFF1A-\uFF20\uFF3B-\uFF40\uFF5B-\uFF65\\'!"#$%&\xa3\xa2\xa5\xa7\u20ac()*+,\-./:;<=>?@[\]^_`{|}~\xb1]|\p{Extended_Pictographic}/gu;
  // A ::before or ::after box with a background covering over a quarter of the text's element or
  // an ancestor: the background behind the text is unknown, so axe leaves it unjudged.
  const pseudoBackdropArea = (node, pseudo) => {
    const style = getComputedStyle(node, pseudo);
    if (style.content === "none" || style.display === "none" || style.visibility === "hidden") return 0;
    if (style.position !== "absolute") return 0;
    const color = parseColor(style.backgroundColor);
    if ((!color || color[3] === 0) && style.backgroundImage === "none") return 0;
    const [width, height] = [style.width, style.height];
    if (!width.endsWith("px") || !height.endsWith("px")) return parseFloat(width) === 0 || parseFloat(height) === 0 ? 0 : Infinity;
    return parseFloat(width) * parseFloat(height);
  };
  // An ancestor's backdrops are the same for every text under it: read once.
  const backdropAreas = new Map();
  const backdropArea = (node) => {
    if (!backdropAreas.has(node)) {
      backdropAreas.set(node, pseudoBackdropArea(node, "::before") + pseudoBackdropArea(node, "::after"));
    }
    return backdropAreas.get(node);
  };
  const underPseudoBackdrop = (element) => {
    const box = element.getBoundingClientRect();
    const quarter = box.width * box.height * 0.25;
    for (let node = element; node; node = node.parentElement) {
      if (backdropArea(node) > quarter) return true;
    }
    return false;
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
    const text = ownText(element);
    if (!onScreen(element) || !parseFloat(style.fontSize) || !text.replace(PUNCTUATION_OR_EMOJI, "")) continue;
    if (disabled(element) || labelsOnlyDisabled(element) || underPseudoBackdrop(element)) continue;
    const background = backgroundOf(element);
    const foreground = parseColor(style.color);
    if (!background || !foreground) continue;
    const shown = over(foreground, background);
    const [lighter, darker] = [luminance(shown), luminance(background)].sort((a, b) => b - a);
    const ratio = (lighter + 0.05) / (darker + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (parseInt(style.fontWeight, 10) >= 700 && size >= 18.66);
    const required = large ? 3 : 4.5;
    textElements += 1;
    // A single character failing is left unjudged: axe cannot tell it from an icon or a bullet.
    if (ratio < required - 0.005 && text.length > 1 && contrastFailures.length < LIMIT) {
      contrastFailures.push({
        text: text.slice(0, 60),
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
    .filter(
      (element) =>
        isWidget(element) && isFocusable(element) && !(element instanceof SVGElement) && visible(element) && onScreen(element),
    )
    .slice(0, 5000);
  // Only a neighbour whose box comes within 24px can be nearer than 12px to a target's centre, or
  // have its own centre nearer than 24px (axe's findNearbyElms margin): the DOM is asked about no
  // other, which keeps a page of thousands of links to a quadratic of arithmetic.
  const boxes = new Map(candidates.map((element) => [element, element.getBoundingClientRect()]));
  const neighbours = candidates.filter(inTabOrder);
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
    const otherBox = boxes.get(other);
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
  // A small target whose content spills out of it (an icon larger than its link): axe cannot tell
  // its size and leaves it unjudged.
  const encloses = (outer, inner) =>
    inner.top >= outer.top && inner.left >= outer.left && inner.bottom <= outer.bottom && inner.right <= outer.right;
  const overflowing = (element, box) =>
    [...element.querySelectorAll("*")].some(
      (child) => !inTabOrder(child) && onScreen(child) && !encloses(box, child.getBoundingClientRect()),
    );
  // axe compares a target only with those that move with it: one layer for everything fixed, one
  // per scrolling container, the page for the rest (its grids). A fixed header's links are not
  // crowded by the page scrolling under them.
  const CONTAINING = ["transform", "translate", "rotate", "scale", "perspective", "filter", "backdropFilter"];
  const containsAbsolute = (node) => {
    const style = getComputedStyle(node);
    const willChange = style.willChange.split(",").map((property) => property.trim());
    return (
      style.position !== "static" ||
      CONTAINING.some((property) => style[property] && style[property] !== "none") ||
      style.transformStyle === "preserve-3d" ||
      style.contain.split(" ").some((value) => ["layout", "paint", "strict", "content"].includes(value)) ||
      (style.contentVisibility && style.contentVisibility !== "visible") ||
      willChange.some((property) => ["position", "transform-style", "contain", ...CONTAINING].includes(property))
    );
  };
  const scrolls = (node) => {
    const style = getComputedStyle(node);
    const scrollable = (overflow) => overflow === "auto" || overflow === "scroll";
    return (
      (node.scrollWidth > node.clientWidth && scrollable(style.overflowX)) ||
      (node.scrollHeight > node.clientHeight && scrollable(style.overflowY))
    );
  };
  const layers = new Map();
  const layerOf = (element) => {
    if (!layers.has(element)) {
      const position = getComputedStyle(element).position;
      let anchor = element.parentElement;
      if (position === "absolute") while (anchor?.parentElement && !containsAbsolute(anchor)) anchor = anchor.parentElement;
      layers.set(element, position === "fixed" ? "fixed" : !anchor ? "page" : scrolls(anchor) ? anchor : layerOf(anchor));
    }
    return layers.get(element);
  };
  const targets = candidates.filter(
    (element) =>
      (inTabOrder(element) || !candidates.some((other) => other !== element && other.contains(element) && inTabOrder(other))) &&
      !inTextBlock(element),
  );
  const tapFailures = [];
  let failing = 0;
  for (const element of targets) {
    const box = boxes.get(element);
    // Too small, but only a failure for a target in the tab order next to another (axe: otherwise "incomplete").
    if (bigEnough(box) || !inTabOrder(element) || overflowing(element, box)) continue;
    const rects = rectsOf(element);
    const mine = destination(element);
    const crowded = neighbours.some(
      (other) =>
        other !== element &&
        overlap(box, boxes.get(other), 24) &&
        layerOf(other) === layerOf(element) &&
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
