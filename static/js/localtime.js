// Times in the reader's own time zone. The server speaks UTC; without JavaScript the pages say "UTC".
// - <input type="datetime-local" data-utc>: typed in local time, posted as UTC (ISO 8601 with Z) by a
//   hidden twin carrying the field's name; a value the server sends (UTC) is shown in local time.
//   An element with data-utc-hint="<input id>" says which zone the field is in.
// - <time datetime="…" data-local>: shown in local time, with the zone's name.
// Times are written in the page's language (<html lang>), e.g. "Jan 3, 2026, 8:15 AM" or "03.01.2026, 08:15";
// the words come from the page too (#localtime-words in base.html), translated there.
(function () {
  "use strict";

  var words = (document.getElementById("localtime-words") || { dataset: {} }).dataset;
  var yourTime = words.yourTime || "(optional, your time: {zone})";
  var localTime = words.localTime || "local time";
  var language = document.documentElement.lang || undefined;

  function pad(number) {
    return String(number).padStart(2, "0");
  }

  function localValue(date) {
    return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) + "T" + pad(date.getHours()) + ":" + pad(date.getMinutes());
  }

  function zoneName() {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || localTime;
    } catch (error) {
      return localTime;
    }
  }

  function shown(date) {
    try {
      return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(date);
    } catch (error) {
      return localValue(date).replace("T", " ");
    }
  }

  function fromServer(raw) {
    // The server's values are UTC, with or without an offset written out.
    var date = new Date(/(Z|[+-]\d\d:?\d\d)$/i.test(raw) ? raw : raw + "Z");
    return isNaN(date.getTime()) ? null : date;
  }

  document.querySelectorAll("input[type=datetime-local][data-utc]").forEach(function (input) {
    var raw = input.getAttribute("value");
    var date = raw ? fromServer(raw) : null;
    if (date) {
      input.value = localValue(date);
    }
    var twin = document.createElement("input");
    twin.type = "hidden";
    twin.name = input.name;
    input.removeAttribute("name");
    input.insertAdjacentElement("afterend", twin);
    function sync() {
      // "YYYY-MM-DDTHH:MM" without an offset is local time to Date (ECMAScript), which is what was typed.
      var typed = input.value ? new Date(input.value) : null;
      twin.value = typed && !isNaN(typed.getTime()) ? typed.toISOString() : "";
    }
    input.addEventListener("input", sync);
    input.addEventListener("change", sync);
    sync();
    document.querySelectorAll('[data-utc-hint="' + input.id + '"]').forEach(function (hint) {
      hint.textContent = yourTime.replace("{zone}", zoneName());
    });
  });

  document.querySelectorAll("time[datetime][data-local]").forEach(function (element) {
    var date = fromServer(element.getAttribute("datetime"));
    if (date) {
      element.title = element.getAttribute("datetime");
      element.textContent = shown(date) + " " + zoneName();
    }
  });
})();
