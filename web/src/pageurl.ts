// pageRefusal says why a page an agent asks the user to open must not be opened, or null
// for an http or https page on a named host. It is a second look: parley's core
// (conversation.CheckPageURL) declines every other address before the page is asked, and
// this check follows it, so that a javascript:, data:, blob:, file: or vscode: address
// never reaches window.open even if one came through.
export function pageRefusal(raw: string): string | null {
  if (/[\p{Cc}\p{Cf}\p{Z}\s\uFFFD]/u.test(raw)) return "the address has a control, invisible or space character that can hide where it leads";
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "the address is not a URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return `parley opens only http and https pages, not ${u.protocol} addresses`;
  // A browser reads "https:evil.example" as https://evil.example; parley's core does not.
  if (!/^https?:\/\//i.test(raw) || !u.hostname) return "the address names no host";
  if (u.username || u.password) return "the address carries a user name or password, which can make one site pass for another";
  return null;
}
