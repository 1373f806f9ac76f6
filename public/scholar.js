/* Canon Scholar in the browser: the side panel as a reader's desk.
 *
 * 1. Chainlit opens the side panel by itself whenever an answer brings passages. On a phone that panel is a sheet
 *    over the whole chat: there it is closed again at once (a chip still opens it). The panel body's stale
 *    passages are hidden by scholar.css.
 * 2. Links to /scholar-read/ inside the panel (reading on, the whole text, another translator, the parallels) load
 *    their reading into the panel instead of a new tab; the panel's title follows what its body shows. Without
 *    this script the same links open the reading as a page of its own.
 */
(function () {
  "use strict";
  var NARROW = 768; // Chainlit's own phone breakpoint: below it the panel is a sheet over the chat
  var READ = "/scholar-read/";

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    if (target.closest("a.element-link")) {
      if (window.innerWidth < NARROW) document.body.setAttribute("data-scholar-chip", "");
      return;
    }
    var link = target.closest("#side-view-content a[href]");
    if (link && link.getAttribute("href").indexOf(READ) === 0) {
      event.preventDefault();
      event.stopPropagation();
      loadReading(link);
      return;
    }
    var back = target.closest("#side-view-content [data-scholar-back]");
    if (back) {
      event.preventDefault();
      leaveReading(back.closest(".scholar-reading"));
    }
  }, true);

  function panelRoot(from) {
    var content = document.getElementById("side-view-content");
    if (!content) return null;
    var root = from.closest(".scholar-reading");
    if (root) return root;
    var children = content.children;
    return children.length ? children[children.length - 1] : null;
  }

  function titleNode() {
    var title = document.getElementById("side-view-title");
    if (!title) return null;
    for (var i = title.childNodes.length - 1; i >= 0; i--) {
      var node = title.childNodes[i];
      if (node.nodeType === Node.TEXT_NODE && node.nodeValue.trim()) return node;
    }
    return null;
  }

  function setTitle(text, root) {
    var node = titleNode();
    if (!node) return;
    if (root && !root.hasAttribute("data-scholar-title")) root.setAttribute("data-scholar-title", node.nodeValue);
    node.nodeValue = text;
  }

  function loadReading(link) {
    var root = panelRoot(link);
    if (!root) return;
    var url = link.getAttribute("href") + (link.getAttribute("href").indexOf("?") < 0 ? "?" : "&") + "part=panel";
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.text();
      })
      .then(function (html) {
        var holder = document.createElement("div");
        holder.innerHTML = html; // our server's HTML: every text in it is escaped there
        var reading = holder.querySelector(".scholar-read");
        if (!reading) throw new Error("no reading");
        var old = root.querySelector(":scope > .scholar-read");
        if (old) old.remove();
        root.classList.add("scholar-reading");
        root.appendChild(reading);
        setTitle(reading.getAttribute("data-title") || "", root);
        var content = document.getElementById("side-view-content");
        if (content) content.scrollTop = 0;
        var cited = reading.querySelector("tr.cited");
        if (cited && reading.hasAttribute("data-scroll-cited")) cited.scrollIntoView({ block: "center" });
      })
      .catch(function () {
        window.open(link.getAttribute("href"), "_blank", "noopener");
      });
  }

  function leaveReading(root) {
    if (!root) return;
    var reading = root.querySelector(":scope > .scholar-read");
    if (reading) reading.remove();
    root.classList.remove("scholar-reading");
    var original = root.getAttribute("data-scholar-title");
    if (original !== null) setTitle(original, null);
    root.removeAttribute("data-scholar-title");
  }

  // A panel that appeared without a chip being clicked was opened by Chainlit itself. On a phone it is closed at
  // once (scholar.css keeps it from being painted meanwhile): through the sheet's own close button, which works as
  // soon as React has committed it; Escape, a moment later, is the fallback.
  function closeSheet() {
    var content = document.getElementById("side-view-content");
    var dialog = content && content.closest("[role=dialog]");
    if (!dialog) return;
    var buttons = dialog.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) {
      if (buttons[i].textContent.trim() === "Close") {
        buttons[i].click();
        return;
      }
    }
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", code: "Escape", bubbles: true }));
  }

  // Radix keeps a closing sheet in the page while it slides out, and Chainlit reopens it for every passage of an
  // answer as it arrives: what counts is the sheet's state, open or closed, and whether a chip opened it.
  function sheetOpen() {
    var content = document.getElementById("side-view-content");
    var dialog = content && content.closest("[role=dialog]");
    return !!dialog && dialog.getAttribute("data-state") === "open";
  }

  var wasOpen = false;
  new MutationObserver(function () {
    var open = sheetOpen();
    if (open && window.innerWidth < NARROW && !document.body.hasAttribute("data-scholar-chip")) {
      closeSheet();
      setTimeout(function () {
        if (sheetOpen() && !document.body.hasAttribute("data-scholar-chip")) closeSheet();
      }, 150);
      open = false;
    }
    if (wasOpen && !open) document.body.removeAttribute("data-scholar-chip");
    wasOpen = open;
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true,
                                           attributeFilter: ["data-state"] });
})();
