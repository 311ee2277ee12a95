/*
 * Shopsight search widget — a drop-in script, no framework and no build step.
 *
 *   <div id="search"></div>
 *   <script src="https://search.example/widget.js"></script>
 *   <script>
 *     ServiceWidget.mount(document.getElementById("search"), { key: "pk_live_…" });
 *     // on the order-confirmation page (mount() or configure() first):
 *     ServiceWidget.trackPurchase("sku-123", { order_value: 59.97, currency: "EUR", quantity: 3 });
 *   </script>
 *
 * It holds no secret: the page passes its public widget key (pk_live_…), which the service only
 * accepts from the origins the key was minted for. Clicks and add-to-cart are reported
 * automatically with the search's search_id and a session id kept in localStorage under
 * "service-sid". Purchases are attributed to the search in which the shopper last clicked the
 * product or added it to the cart, or else to the last search that showed it (a small map kept in
 * localStorage under "service-attribution": 200 products, 30 days).
 *
 * mount(element, options) options:
 *   key         (required) public widget key
 *   apiBaseUrl  Search API address; default: where this script was loaded from
 *   limit       results per search (1–50, default 12)
 *   currency    ISO 4217 code of metadata.price when a product names none in metadata.currency;
 *               default: the store's currency, which every search answer carries (`currency`: set
 *               in the portal's Assistant settings, USD until set)
 *   locale      BCP 47 tag prices are formatted for; default: the page's <html lang>, else the
 *               browser's language ("€47.40" in en, "47,40 €" in de)
 *   suggestions false turns type-ahead off (default on: see below)
 *   onSelect(detail), onAddToCart(detail)  callbacks; the element also receives the DOM events
 *               "servicewidget:select" and "servicewidget:addtocart" ({product_id, search_id, metadata, image_url})
 * mount() returns { search(text), searchImageUrl(url), searchImageFile(file), destroy() }.
 *
 * Type-ahead: the search box is an ARIA 1.2 combobox. From the second character typed, after a
 * pause of 150 ms, it asks GET /v1/widget/search/suggestions for the store's popular searches and
 * product names and lists them; one request at a time (what was typed meanwhile is asked next,
 * an answer for older text is dropped), the last 100 answers kept per text. ArrowDown /
 * ArrowUp move through the list, Enter searches the highlighted suggestion (or, with none
 * highlighted, the text typed), Escape closes the list, and so do leaving the box or clicking
 * elsewhere. Type-ahead fails quietly: without suggestions the box is a plain search box.
 */
(function () {
  "use strict";
  if (window.ServiceWidget && window.ServiceWidget.version) return;

  var VERSION = "1.0.0";
  var SID_KEY = "service-sid";
  var ATTRIBUTION_KEY = "service-attribution";
  var ATTRIBUTION_MAX = 200;
  var ATTRIBUTION_TTL_MS = 30 * 24 * 3600 * 1000;
  var NAVIGATION_WAIT_MS = 400;
  var SUGGEST_DELAY_MS = 150;
  var SUGGEST_MIN_CHARS = 2;
  var SUGGEST_LIMIT = 8;
  var SUGGEST_CACHE_MAX = 100;

  var scriptOrigin = (function () {
    try {
      var s = document.currentScript;
      return s && s.src ? new URL(s.src, location.href).origin : null;
    } catch {
      return null;
    }
  })();

  var defaults = null; // {key, apiBaseUrl} of the last mount() / configure()
  var counter = 0;

  // --- storage (falls back to memory when storage is blocked) ----------------------------------
  var memory = {};
  function store() {
    try {
      var s = window.localStorage;
      s.setItem("__ssw", "1");
      s.removeItem("__ssw");
      return s;
    } catch {
      return null;
    }
  }
  function getItem(key) {
    var s = store();
    return s ? s.getItem(key) : Object.prototype.hasOwnProperty.call(memory, key) ? memory[key] : null;
  }
  function setItem(key, value) {
    var s = store();
    if (s) {
      try {
        s.setItem(key, value);
        return;
      } catch {
        /* quota: fall through to memory */
      }
    }
    memory[key] = value;
  }

  function randomId() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return (b + 256).toString(16).slice(1);
      })
      .join("");
  }

  /** The shopper's session id, created on first use. */
  function sessionId() {
    var sid = getItem(SID_KEY);
    if (!sid || !/^[\x21-\x7E]{1,128}$/.test(sid)) {
      sid = randomId();
      setItem(SID_KEY, sid);
    }
    return sid;
  }

  function readAttribution() {
    try {
      var map = JSON.parse(getItem(ATTRIBUTION_KEY) || "{}");
      return map && typeof map === "object" ? map : {};
    } catch {
      return {};
    }
  }

  /**
   * Remembers that `searchId` showed these products (`engaged`: the shopper clicked one or added it
   * to the cart). A search the shopper engaged with is not displaced by a later search that merely
   * showed the product again; a newer engagement is.
   */
  function remember(searchId, productIds, engaged) {
    var now = Date.now();
    var map = readAttribution();
    productIds.forEach(function (id) {
      var old = map[id];
      var oldEngaged = old && old.e === 1 && now - old.t < ATTRIBUTION_TTL_MS;
      if (engaged || !oldEngaged) map[id] = { s: searchId, t: now, e: engaged ? 1 : 0 };
    });
    var entries = Object.keys(map)
      .map(function (id) {
        return [id, map[id]];
      })
      .filter(function (e) {
        return e[1] && typeof e[1].s === "string" && now - e[1].t < ATTRIBUTION_TTL_MS;
      })
      .sort(function (a, b) {
        return b[1].t - a[1].t;
      })
      .slice(0, ATTRIBUTION_MAX);
    var out = {};
    entries.forEach(function (e) {
      out[e[0]] = e[1];
    });
    setItem(ATTRIBUTION_KEY, JSON.stringify(out));
  }

  function searchIdFor(productId) {
    var e = readAttribution()[productId];
    return e && typeof e.s === "string" && Date.now() - e.t < ATTRIBUTION_TTL_MS ? e.s : null;
  }

  // --- HTTP --------------------------------------------------------------------------------------
  function WidgetError(status, code, message, retryAfter) {
    var e = new Error(message);
    e.name = "ServiceWidgetError";
    e.status = status;
    e.code = code;
    e.retryAfter = retryAfter;
    return e;
  }

  /** POSTs `body` (JSON or FormData) to `path`; without a body, GETs `path`. */
  function call(cfg, path, body) {
    var isForm = typeof FormData !== "undefined" && body instanceof FormData;
    var headers = { "X-Service-Key": cfg.key };
    if (body !== undefined && !isForm) headers["Content-Type"] = "application/json";
    return fetch(cfg.apiBaseUrl + path, {
      method: body === undefined ? "GET" : "POST",
      mode: "cors",
      credentials: "omit",
      headers: headers,
      body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
    }).then(
      function (res) {
        return res
          .json()
          .catch(function () {
            return null;
          })
          .then(function (data) {
            if (res.ok) return data;
            var retry = Number(res.headers.get("Retry-After")) || null;
            throw WidgetError(res.status, data && data.error, (data && data.message) || "HTTP " + res.status, retry);
          });
      },
      function () {
        // The browser hides refused cross-origin answers (e.g. 403 for an origin not on the key's list).
        throw WidgetError(0, "network_error", "The search service could not be reached from this page.", null);
      },
    );
  }

  function friendly(err) {
    if (err.status === 429) {
      return "Too many searches right now. Please wait " + (err.retryAfter ? err.retryAfter + " seconds" : "a moment") + " and try again.";
    }
    if (err.status === 401) return "Search is not set up correctly on this site (invalid widget key).";
    if (err.status === 403) return "Search is not enabled for this site.";
    if (err.status === 0) return "Search is unavailable on this page right now. Please try again later.";
    if (err.status >= 500) return "Search is temporarily unavailable. Please try again later.";
    return err.message;
  }

  function resolveConfig(options) {
    options = options || {};
    var key = options.key || (defaults && defaults.key);
    if (typeof key !== "string" || key.indexOf("pk_live_") !== 0) {
      throw new Error("ServiceWidget: a public widget key (pk_live_…) is required");
    }
    var base = options.apiBaseUrl || (defaults && defaults.apiBaseUrl) || scriptOrigin || location.origin;
    return { key: key, apiBaseUrl: String(base).replace(/\/+$/, "") };
  }

  function postFeedback(cfg, payload) {
    payload.session_id = sessionId();
    return call(cfg, "/v1/widget/search/feedback", payload);
  }

  // --- styles ------------------------------------------------------------------------------------
  var CSS =
    ".ssw{font:inherit;color:inherit;max-width:100%}" +
    ".ssw *{box-sizing:border-box}" +
    ".ssw-row{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center;margin:.25rem 0 .75rem}" +
    ".ssw label{display:block;font-weight:600;margin-top:.25rem}" +
    ".ssw input[type=search],.ssw input[type=url]{flex:1 1 14rem;min-width:0;padding:.5rem .6rem;border:1px solid #6b6b6b;border-radius:.3rem;font:inherit}" +
    ".ssw button{padding:.5rem .8rem;border:1px solid #1d3f8f;border-radius:.3rem;background:#1d3f8f;color:#fff;font:inherit;cursor:pointer}" +
    ".ssw button.ssw-secondary{background:#fff;color:#1d3f8f}" +
    ".ssw :focus-visible{outline:3px solid #f2a900;outline-offset:2px}" +
    ".ssw-status{min-height:1.5em;margin:.25rem 0}" +
    ".ssw-error{color:#a4141c;font-weight:600;margin:.25rem 0}" +
    ".ssw-results{list-style:none;margin:0;padding:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr))}" +
    ".ssw-item{border:1px solid #d0d0d0;border-radius:.4rem;padding:.5rem;display:flex;flex-direction:column;gap:.4rem}" +
    ".ssw-product{display:flex;flex-direction:column;gap:.4rem;background:none !important;color:inherit !important;border:0 !important;padding:0 !important;text-align:left;text-decoration:none}" +
    ".ssw-product img{width:100%;aspect-ratio:1/1;object-fit:cover;border-radius:.3rem;background:#f2f2f2}" +
    ".ssw-name{font-weight:600}" +
    ".ssw-heading{font-size:1.1rem;margin:.5rem 0}" +
    ".ssw-suggestion{background:none;border:0;padding:0;color:inherit;text-decoration:underline;cursor:pointer;font:inherit}" +
    ".ssw-combo{position:relative;flex:1 1 14rem;min-width:0;display:flex}" +
    ".ssw-combo input[type=search]{flex:1 1 auto;width:100%}" +
    ".ssw-listbox{position:absolute;z-index:1000;top:100%;left:0;right:0;margin:.15rem 0 0;padding:.25rem 0;list-style:none;background:#fff;color:#1a1a1a;border:1px solid #6b6b6b;border-radius:.3rem;box-shadow:0 4px 12px rgba(0,0,0,.15);max-height:20rem;overflow-y:auto}" +
    ".ssw-option{padding:.4rem .6rem;cursor:pointer}" +
    ".ssw-option:hover{background:#eef2fb}" +
    ".ssw-option[aria-selected=true]{background:#1d3f8f;color:#fff}" +
    ".ssw-option b{font-weight:700}" +
    ".ssw-visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}";

  function injectStyles() {
    if (document.getElementById("ssw-styles")) return;
    var style = document.createElement("style");
    style.id = "ssw-styles";
    style.textContent = CSS;
    (document.head || document.documentElement).appendChild(style);
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "className") node.className = attrs[k];
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
    });
    (children || []).forEach(function (c) {
      if (c) node.appendChild(c);
    });
    return node;
  }

  function safeUrl(value) {
    return typeof value === "string" && /^https?:\/\//i.test(value) ? value : null;
  }

  // --- mount -------------------------------------------------------------------------------------
  function mount(element, options) {
    if (!element || element.nodeType !== 1) throw new Error("ServiceWidget.mount: a DOM element is required");
    options = options || {};
    var cfg = resolveConfig(options);
    defaults = cfg;
    sessionId();
    injectStyles();
    counter += 1;
    var id = "ssw-" + counter;
    var limit = Math.max(1, Math.min(50, Number(options.limit) || 12));
    // One formatter per currency (a product's own metadata.currency, else the mount option, else
    // the store's currency from the search answer), in the page's language, else the browser's.
    var locale = typeof options.locale === "string" && options.locale ? options.locale : document.documentElement.lang || undefined;
    var priceFormats = {};
    function numberFormat(code) {
      try {
        return new Intl.NumberFormat(locale, { style: "currency", currency: code });
      } catch {
        try {
          return new Intl.NumberFormat(undefined, { style: "currency", currency: code }); // an invalid locale tag
        } catch {
          return null; // not a currency Intl knows
        }
      }
    }
    function formatPrice(amount, currency) {
      var code = isCode(currency) ? currency.toUpperCase() : null;
      if (code === null) return amount.toFixed(2);
      if (!(code in priceFormats)) priceFormats[code] = numberFormat(code);
      return priceFormats[code] ? priceFormats[code].format(amount) : amount.toFixed(2) + " " + code;
    }
    function isCode(value) {
      return typeof value === "string" && /^[A-Za-z]{3}$/.test(value);
    }

    var typeahead = options.suggestions !== false;
    var query = el("input", {
      id: id + "-q",
      type: "search",
      name: "q",
      autocomplete: "off",
      required: true,
      maxlength: "500",
      role: typeahead ? "combobox" : null,
      "aria-autocomplete": typeahead ? "list" : null,
      "aria-expanded": typeahead ? "false" : null,
      "aria-controls": typeahead ? id + "-suggestions" : null,
    });
    var listbox = el("ul", {
      id: id + "-suggestions",
      className: "ssw-listbox",
      role: "listbox",
      "aria-label": "Suggestions",
      hidden: true,
    });
    var textForm = el("form", { className: "ssw-form", role: "search", "aria-label": "Product search" }, [
      el("label", { for: id + "-q", text: "Search products" }),
      el("div", { className: "ssw-row" }, [
        typeahead ? el("div", { className: "ssw-combo" }, [query, listbox]) : query,
        el("button", { type: "submit", text: "Search" }),
      ]),
    ]);
    var urlInput = el("input", {
      id: id + "-url",
      type: "url",
      name: "image_url",
      placeholder: "https://…",
      maxlength: "2048",
      required: true,
    });
    var urlForm = el("form", { className: "ssw-url-form", "aria-label": "Search by image address" }, [
      el("label", { for: id + "-url", text: "Search by image URL" }),
      el("div", { className: "ssw-row" }, [urlInput, el("button", { type: "submit", className: "ssw-secondary", text: "Find similar" })]),
    ]);
    var fileInput = el("input", { id: id + "-file", type: "file", name: "image", accept: "image/*" });
    var fileBlock = el("div", { className: "ssw-upload" }, [
      el("label", { for: id + "-file", text: "Search with a photo" }),
      el("div", { className: "ssw-row" }, [fileInput]),
    ]);
    var status = el("p", { className: "ssw-status", role: "status", "aria-live": "polite", "aria-atomic": "true" });
    var error = el("p", { className: "ssw-error", role: "alert", hidden: true });
    var heading = el("h2", { className: "ssw-heading", id: id + "-heading", tabindex: "-1", hidden: true, text: "Results" });
    var suggestion = el("p", { className: "ssw-did-you-mean", hidden: true });
    var list = el("ul", { className: "ssw-results", "aria-labelledby": id + "-heading", "aria-busy": "false" });
    var root = el("div", { className: "ssw" }, [textForm, urlForm, fileBlock, status, error, heading, suggestion, list]);

    element.textContent = "";
    element.appendChild(root);

    var current = null; // {search_id, results}
    var sequence = 0;

    function showError(message) {
      error.textContent = message;
      error.hidden = false;
    }
    function clearError() {
      error.textContent = "";
      error.hidden = true;
    }

    function emit(name, detail, callback) {
      try {
        element.dispatchEvent(new CustomEvent("servicewidget:" + name, { detail: detail, bubbles: true }));
        if (typeof callback === "function") callback(detail);
      } catch (e) {
        if (window.console) console.error(e);
      }
    }

    function track(action, result) {
      if (!current) return Promise.resolve(null);
      remember(current.search_id, [result.product_id], true);
      return postFeedback(cfg, { search_id: current.search_id, result_product_id: result.product_id, action: action }).catch(
        function (err) {
          if (window.console) console.warn("ServiceWidget: feedback not recorded:", err.message);
          return null;
        },
      );
    }

    function renderItem(result, index) {
      var meta = result.metadata || {};
      var name = typeof meta.name === "string" && meta.name ? meta.name : result.product_id;
      var href = safeUrl(meta.url) || safeUrl(meta.product_url);
      var img = safeUrl(result.image_url);
      var nameId = id + "-name-" + index;
      var productChildren = [
        img ? el("img", { src: img, alt: "", loading: "lazy", width: "160", height: "160" }) : null,
        el("span", { className: "ssw-name", id: nameId, text: name }),
      ];
      var product = href
        ? el("a", { className: "ssw-product", href: href }, productChildren)
        : el("button", { type: "button", className: "ssw-product" }, productChildren);
      var detail = { product_id: result.product_id, search_id: current.search_id, metadata: meta, image_url: result.image_url };
      product.addEventListener("click", function (event) {
        var sent = track("click", result);
        emit("select", detail, options.onSelect);
        // A link leaves the page: give the click report a moment to go out first.
        if (href && event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey && !event.defaultPrevented) {
          event.preventDefault();
          var go = function () {
            location.href = href;
          };
          Promise.race([
            sent,
            new Promise(function (r) {
              setTimeout(r, NAVIGATION_WAIT_MS);
            }),
          ]).then(go, go);
        }
      });
      var currency = isCode(meta.currency) ? meta.currency : isCode(options.currency) ? options.currency : current.currency;
      var price = typeof meta.price === "number" ? formatPrice(meta.price, currency) : null;
      var cart = el("button", { type: "button", className: "ssw-cart", "aria-label": "Add " + name + " to cart", text: "Add to cart" });
      cart.addEventListener("click", function () {
        track("add_to_cart", result);
        emit(
          "addtocart",
          { product_id: detail.product_id, search_id: detail.search_id, metadata: meta, image_url: result.image_url, quantity: 1 },
          options.onAddToCart,
        );
        status.textContent = "Added " + name + " to the cart.";
      });
      return el("li", { className: "ssw-item" }, [
        product,
        price !== null ? el("span", { className: "ssw-price", text: price }) : null,
        cart,
      ]);
    }

    function render(response, label, moveFocus) {
      current = response;
      list.textContent = "";
      response.results.forEach(function (r, i) {
        list.appendChild(renderItem(r, i));
      });
      remember(
        response.search_id,
        response.results.map(function (r) {
          return r.product_id;
        }),
        false,
      );
      heading.hidden = false;
      // The service answers only results with evidence (a matched word or a close enough image):
      // none means nothing in the shop is a good match, never that the search failed.
      heading.textContent = response.count === 0 ? "No good matches" : "Results";
      status.textContent =
        response.count === 0
          ? "No good matches for " + label + "."
          : response.count + (response.count === 1 ? " product" : " products") + " found for " + label + ".";
      suggestion.textContent = "";
      suggestion.hidden = true;
      if (typeof response.did_you_mean === "string" && response.did_you_mean !== "") {
        var corrected = response.did_you_mean;
        var again = el("button", { type: "button", className: "ssw-suggestion", text: corrected });
        again.addEventListener("click", function () {
          query.value = corrected;
          api.search(corrected).catch(swallow);
        });
        suggestion.appendChild(document.createTextNode("Did you mean "));
        suggestion.appendChild(again);
        suggestion.appendChild(document.createTextNode("?"));
        suggestion.hidden = false;
      }
      if (moveFocus) heading.focus();
    }

    function run(path, body, label, moveFocus) {
      var mine = (sequence += 1);
      closeSuggestions(true);
      clearError();
      status.textContent = "Searching…";
      list.setAttribute("aria-busy", "true");
      return call(cfg, path, body).then(
        function (response) {
          if (mine !== sequence) return response; // a newer search is under way
          list.setAttribute("aria-busy", "false");
          render(response, label, moveFocus);
          return response;
        },
        function (err) {
          if (mine === sequence) {
            list.setAttribute("aria-busy", "false");
            status.textContent = "";
            showError(friendly(err));
          }
          throw err;
        },
      );
    }

    // --- type-ahead (ARIA 1.2 combobox; see the header) ----------------------------------------
    var suggestions = []; // what the list shows: [{kind, text, product_id?}]
    var active = -1; // the highlighted option, -1 for none
    var suggestCache = Object.create(null); // normalised text → suggestions (no prototype: "constructor" is a word)
    var suggestCacheKeys = [];
    var suggestTimer = null;
    var inFlight = null; // the text being asked for, or null
    var wanted = null; // the text to ask for once the request in flight is answered
    var suggestEpoch = 0; // bumped when the list is closed on purpose: answers asked before are dropped
    var suggestPausedUntil = 0; // after a 429, until its Retry-After

    function normalised(text) {
      return text.toLowerCase().replace(/\s+/g, " ").replace(/^ /, "");
    }
    function isOpen() {
      return !listbox.hidden;
    }
    function setActive(index) {
      active = index;
      Array.prototype.forEach.call(listbox.children, function (option, i) {
        option.setAttribute("aria-selected", i === index ? "true" : "false");
      });
      if (index >= 0 && listbox.children[index]) {
        query.setAttribute("aria-activedescendant", listbox.children[index].id);
        var option = listbox.children[index];
        if (option.offsetTop < listbox.scrollTop) listbox.scrollTop = option.offsetTop;
        else if (option.offsetTop + option.offsetHeight > listbox.scrollTop + listbox.clientHeight)
          listbox.scrollTop = option.offsetTop + option.offsetHeight - listbox.clientHeight;
      } else {
        query.removeAttribute("aria-activedescendant");
      }
    }
    function openList() {
      if (suggestions.length === 0) return;
      listbox.hidden = false;
      query.setAttribute("aria-expanded", "true");
    }
    /** Closes the list; `cancel`: also forget what was being typed (a search starts, or Escape). */
    function closeSuggestions(cancel) {
      if (!typeahead) return;
      setActive(-1);
      listbox.hidden = true;
      query.setAttribute("aria-expanded", "false");
      if (cancel) {
        clearTimeout(suggestTimer);
        suggestTimer = null;
        wanted = null;
        suggestEpoch += 1;
        suggestions = [];
        listbox.textContent = "";
      }
    }
    /** The typed prefix in bold, the rest plain (text nodes only: nothing is parsed as HTML). */
    function optionContent(node, text, typed) {
      var lower = text.toLowerCase();
      var prefix = typed.trim();
      if (prefix && lower.indexOf(prefix) === 0) {
        node.appendChild(el("b", { text: text.slice(0, prefix.length) }));
        node.appendChild(document.createTextNode(text.slice(prefix.length)));
      } else {
        node.textContent = text;
      }
    }
    function showSuggestions(list, typed) {
      suggestions = list;
      listbox.textContent = "";
      list.forEach(function (s, i) {
        var option = el("li", { id: id + "-option-" + i, className: "ssw-option", role: "option", "aria-selected": "false" });
        optionContent(option, s.text, typed);
        // mousedown would move focus out of the box (and close the list) before the click lands.
        option.addEventListener("mousedown", function (event) {
          event.preventDefault();
        });
        option.addEventListener("click", function () {
          pick(i);
        });
        listbox.appendChild(option);
      });
      setActive(-1);
      if (list.length > 0 && document.activeElement === query) openList();
      else closeSuggestions(false);
    }
    function pick(index) {
      var s = suggestions[index];
      if (!s) return;
      query.value = s.text;
      api.search(s.text).catch(swallow);
    }
    function cacheSuggestions(text, list) {
      if (!(text in suggestCache)) suggestCacheKeys.push(text);
      suggestCache[text] = list;
      if (suggestCacheKeys.length > SUGGEST_CACHE_MAX) delete suggestCache[suggestCacheKeys.shift()];
    }
    /** Asks for the suggestions of `text`: at most one request at a time; a stale answer is dropped. */
    function askSuggestions(text) {
      if (text in suggestCache) {
        showSuggestions(suggestCache[text], text);
        return;
      }
      if (inFlight !== null) {
        wanted = text; // asked once the request in flight is answered
        return;
      }
      if (Date.now() < suggestPausedUntil) return;
      inFlight = text;
      var epoch = suggestEpoch;
      call(cfg, "/v1/widget/search/suggestions?q=" + encodeURIComponent(text) + "&limit=" + SUGGEST_LIMIT)
        .then(
          function (answer) {
            var list = answer && Array.isArray(answer.suggestions) ? answer.suggestions : [];
            cacheSuggestions(text, list);
            if (epoch === suggestEpoch && normalised(query.value) === text) showSuggestions(list, text);
          },
          function (err) {
            if (err.status === 429) suggestPausedUntil = Date.now() + (err.retryAfter || 60) * 1000;
          },
        )
        .then(function () {
          inFlight = null;
          var next = wanted;
          wanted = null;
          if (next !== null && next !== text && normalised(query.value) === next) askSuggestions(next);
        });
    }
    function typed() {
      var text = normalised(query.value);
      clearTimeout(suggestTimer);
      suggestTimer = null;
      if (text.trim().length < SUGGEST_MIN_CHARS) {
        wanted = null;
        suggestions = [];
        closeSuggestions(false);
        return;
      }
      if (text in suggestCache) {
        showSuggestions(suggestCache[text], text);
        return;
      }
      suggestTimer = setTimeout(function () {
        suggestTimer = null;
        askSuggestions(text);
      }, SUGGEST_DELAY_MS);
    }
    function onKeyDown(event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var n = suggestions.length;
      if (event.key === "ArrowDown" || event.key === "Down") {
        if (n === 0) return;
        event.preventDefault();
        if (!isOpen()) {
          openList();
          setActive(0);
        } else setActive(active + 1 >= n ? 0 : active + 1);
      } else if (event.key === "ArrowUp" || event.key === "Up") {
        if (n === 0) return;
        event.preventDefault();
        if (!isOpen()) {
          openList();
          setActive(n - 1);
        } else setActive(active <= 0 ? n - 1 : active - 1);
      } else if (event.key === "Enter") {
        if (isOpen() && active >= 0) {
          event.preventDefault();
          pick(active);
        } // else the form searches the text typed (and run() closes the list)
      } else if (event.key === "Escape" || event.key === "Esc") {
        if (isOpen()) {
          event.preventDefault(); // a search box would clear itself on Escape
          closeSuggestions(true);
        }
      }
    }
    function onOutside(event) {
      if (isOpen() && !textForm.contains(event.target)) closeSuggestions(false);
    }
    if (typeahead) {
      query.addEventListener("input", typed);
      query.addEventListener("keydown", onKeyDown);
      query.addEventListener("blur", function () {
        closeSuggestions(false);
      });
      document.addEventListener("mousedown", onOutside, true);
    }

    var swallow = function () {};
    var api = {
      search: function (text) {
        return run("/v1/widget/search/text", { query: String(text), limit: limit }, "\u201c" + text + "\u201d", false);
      },
      searchImageUrl: function (url) {
        return run("/v1/widget/search/url", { image_url: String(url), limit: limit }, "the image", true);
      },
      searchImageFile: function (file) {
        var form = new FormData();
        form.append("image", file, file.name || "image");
        form.append("limit", String(limit));
        return run("/v1/widget/search/upload", form, "your photo", true);
      },
      destroy: function () {
        closeSuggestions(true);
        document.removeEventListener("mousedown", onOutside, true);
        element.textContent = "";
      },
    };

    textForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var text = query.value.trim();
      if (!text) {
        showError("Type what you are looking for.");
        query.focus();
        return;
      }
      api.search(text).catch(swallow);
    });
    urlForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var url = urlInput.value.trim();
      if (!safeUrl(url)) {
        showError("Enter an image address starting with http:// or https://.");
        urlInput.focus();
        return;
      }
      api.searchImageUrl(url).catch(swallow);
    });
    fileInput.addEventListener("change", function () {
      var file = fileInput.files && fileInput.files[0];
      if (file) api.searchImageFile(file).catch(swallow);
    });
    return api;
  }

  /**
   * Reports a purchase of `productId`, attributed to the search the shopper last engaged with it
   * in, else the last search that showed it (unattributed when none did). Resolves to the recorded
   * feedback; rejects with a ServiceWidgetError.
   */
  function trackPurchase(productId, details) {
    details = details || {};
    if (typeof productId !== "string" || productId === "")
      return Promise.reject(new Error("ServiceWidget.trackPurchase: a product id is required"));
    var cfg;
    try {
      cfg = resolveConfig(details.key ? details : undefined);
    } catch (e) {
      return Promise.reject(e);
    }
    var payload = { result_product_id: productId, action: "purchase", quantity: details.quantity === undefined ? 1 : details.quantity };
    var searchId = searchIdFor(productId);
    if (searchId) payload.search_id = searchId;
    if (details.order_value !== undefined) payload.order_value = details.order_value;
    if (details.currency !== undefined) payload.currency = details.currency;
    return postFeedback(cfg, payload);
  }

  /** Sets the key (and API address) for pages that report purchases without mounting a search box. */
  function configure(options) {
    defaults = resolveConfig(options);
    sessionId();
  }

  window.ServiceWidget = {
    version: VERSION,
    mount: mount,
    configure: configure,
    trackPurchase: trackPurchase,
    sessionId: sessionId,
  };
})();
