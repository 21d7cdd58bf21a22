// Only http and https pages on a named host, without credentials or hiding characters,
// are opened for an agent (the same rule as parley's conversation.CheckPageURL).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageRefusal } from '../../src/pageUrl';

test('http and https pages are opened', () => {
  for (const ok of ['https://example.com/a?b=c#d', 'http://127.0.0.1:8080/', 'HTTPS://Example.com/', 'https://de.wikipedia.org/wiki/Straße']) {
    assert.equal(pageRefusal(ok), undefined, ok);
  }
});

test('every other address is refused, saying why', () => {
  for (const [url, why] of [
    ['javascript:alert(1)', 'not javascript:'],
    ['data:text/html,<script>alert(1)</script>', 'not data:'],
    ['file:///etc/passwd', 'not file:'],
    ['vscode://vscode.git/clone?url=x', 'not vscode:'],
    ['command:workbench.action.terminal.new', 'not command:'],
    ['blob:https://example.com/1234', 'not blob:'],
    ['https:evil.example', 'no host'],
    ['https://bank.example@evil.example/', 'user name'],
    ['https://example.com/\u202egnp.exe', 'invisible'],
    [' https://example.com/', 'space'],
    ['example.com', 'not a URL'],
  ]) {
    assert.match(pageRefusal(url) ?? 'opened', new RegExp(why), url);
  }
});
