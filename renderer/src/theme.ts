// The one answer to "is the page dark?": an explicit theme (Settings → <html data-theme>) wins;
// 'system' (or none yet) follows the OS preference. Charts, Compare and Plan all read it here.
export function isDarkTheme(
  root: { dataset: DOMStringMap } = document.documentElement,
  media: ((query: string) => { matches: boolean }) | undefined = window.matchMedia?.bind(window),
): boolean {
  const chosen = root.dataset.theme;
  if (chosen === 'dark') return true;
  if (chosen === 'light') return false;
  return !!media?.('(prefers-color-scheme: dark)').matches;
}
