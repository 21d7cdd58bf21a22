// pageRefusal says why a page an agent asks the user to open must not be opened, or
// undefined for an http or https page on a named host. A second look: parley declines
// every other address before it asks (conversation.CheckPageURL in Go; the web page has
// the same check in web/src/pageurl.ts), so that a javascript:, data:, file:, vscode: or
// command: address never reaches openExternal even if one came through.
export function pageRefusal(raw: string): string | undefined {
  if (/[\p{Cc}\p{Cf}\p{Z}\s\uFFFD]/u.test(raw)) return 'the address has a control, invisible or space character that can hide where it leads';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'the address is not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `parley opens only http and https pages, not ${u.protocol} addresses`;
  if (!/^https?:\/\//i.test(raw) || !u.hostname) return 'the address names no host';
  if (u.username || u.password) return 'the address carries a user name or password, which can make one site pass for another';
  return undefined;
}
