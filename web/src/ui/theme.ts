import { h } from "../dom";

// The page's theme: light, dark, or the system's (the default), remembered in
// localStorage. It is a data-theme attribute on <html> that style.css reads: no inline
// style, so a strict CSP allows it. In VS Code the editor's theme rules and there is no
// switch.
const themeKey = "parley.theme";
const themes = ["system", "light", "dark"] as const;
type Theme = (typeof themes)[number];

export function savedTheme(): Theme {
  try {
    const t = localStorage.getItem(themeKey);
    if (t === "light" || t === "dark") return t;
  } catch {}
  return "system";
}

export function applyTheme(t: Theme) {
  if (t === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
}

export function themeSwitch(): HTMLElement {
  const select = h("select", { class: "theme", "aria-label": "theme", title: "Theme" });
  for (const t of themes) select.append(h("option", { value: t, text: t === "system" ? "◐ System" : t === "light" ? "☀ Light" : "☾ Dark" }));
  select.value = savedTheme();
  applyTheme(savedTheme());
  select.onchange = () => {
    const t = select.value as Theme;
    applyTheme(t);
    try {
      if (t === "system") localStorage.removeItem(themeKey);
      else localStorage.setItem(themeKey, t);
    } catch {
      /* private mode: the theme holds for this page */
    }
  };
  return select;
}
