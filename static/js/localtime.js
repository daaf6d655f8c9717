// Times in the reader's own time zone. The server speaks UTC; without JavaScript the pages say "UTC".
// - <input type="datetime-local" data-utc>: typed in local time, posted as UTC (ISO 8601 with Z) by a
//   hidden twin carrying the field's name; a value the server sends (UTC) is shown in local time.
//   An element with data-utc-hint="<input id>" says which zone the field is in.
// - <time datetime="…" data-local>: shown in local time, with the zone's name.
(function () {
  "use strict";

  function pad(number) {
    return String(number).padStart(2, "0");
  }

  function localValue(date) {
    return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) + "T" + pad(date.getHours()) + ":" + pad(date.getMinutes());
  }

  function zoneName() {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
    } catch (error) {
      return "local time";
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
      hint.textContent = "(optional, your time: " + zoneName() + ")";
    });
  });

  document.querySelectorAll("time[datetime][data-local]").forEach(function (element) {
    var date = fromServer(element.getAttribute("datetime"));
    if (date) {
      element.title = element.getAttribute("datetime");
      element.textContent = localValue(date).replace("T", " ") + " " + zoneName();
    }
  });
})();
