// End to end in a real VS Code (code-server, headless Chromium): the parley extension as
// published for this platform (its .vsix installed, the parley it carries, no proposed
// API), as another extension uses it through vscode.lm, as a model chosen in the Chat
// view's picker, as the @parley participant, and in VS Code's own agent mode; then its
// proposed-API flavour in a VS Code that grants it, and the extension in an editor
// without the language model provider API. Screenshots go to PARLEY_VSCODE_ARTIFACTS
// (default: test-output/ beside package.json); timings to timings.json there.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { installsFromEnv, startVSCode, type VSCode } from './harness';

const artifacts = process.env.PARLEY_VSCODE_ARTIFACTS || path.resolve(__dirname, '../../../test-output');
const shots = path.join(artifacts, 'screenshots');
const timings: Record<string, number> = {};

/** How long the tests wait for anything VS Code does; generous, as the machine is shared. */
const PATIENCE = 60_000;

let vs: VSCode;
let page: Page;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(shots, `${name}.png`) });
}

/** The chat input's editor. */
const input = () => page.locator('.interactive-input-part .monaco-editor').first();

/** Starts a new chat, so that nothing (a sticky @parley, an earlier turn) carries over. */
async function newChat(): Promise<void> {
  await page.keyboard.press('Escape'); // a menu left open would take the click
  await page.locator('a.action-label[aria-label^="New Chat"]').first().click();
  await page.waitForFunction(() => document.querySelectorAll('.interactive-session .interactive-response').length === 0, undefined, { timeout: PATIENCE });
}

/** Types a message into the chat input and sends it; returns the time it was sent. */
async function send(text: string): Promise<number> {
  await input().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  const lines = text.split('\n'); // typed one by one, Shift+Enter between them
  for (const [i, line] of lines.entries()) {
    if (i > 0) await page.keyboard.press('Shift+Enter');
    await page.keyboard.type(line, { delay: 5 });
  }
  const sent = Date.now();
  await page.keyboard.press('Enter');
  return sent;
}

/** The last response in the chat. */
const lastResponse = (): Locator => page.locator('.interactive-session .interactive-response').last();

/** Waits until the last response's text matches; returns when it first did. */
async function waitForResponseText(re: RegExp, timeout = PATIENCE): Promise<number> {
  await page.waitForFunction(
    ([source, flags]) => {
      const all = document.querySelectorAll('.interactive-session .interactive-response');
      const last = all[all.length - 1] as HTMLElement | undefined;
      return !!last && new RegExp(source, flags).test(last.innerText);
    },
    [re.source, re.flags] as const,
    { timeout, polling: 20 },
  );
  return Date.now();
}

/** Waits for the last response to finish (no progress, no pending confirmation). */
async function waitForResponseDone(): Promise<void> {
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('.interactive-session .interactive-item-container.interactive-response');
    const last = all[all.length - 1];
    return !!last && !last.classList.contains('chat-response-loading') && !document.querySelector('.interactive-session .chat-animated-ellipsis:not(:empty)');
  }, undefined, { timeout: PATIENCE });
}

/** Opens the folded groups of finished steps in the last response (they nest). */
async function expandSteps(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const folded = lastResponse().locator('summary[aria-expanded="false"], .chat-used-context-label a[aria-expanded="false"]').filter({ hasText: /step/i });
    if ((await folded.count()) === 0) return;
    await folded.first().click();
  }
}

/**
 * Chooses a model in the chat input's model picker, by searching for it. The picker is
 * re-rendered when a new chat's widget settles, and a menu opened from the old one shows an
 * empty list at the corner of the window: such a menu is closed and the picker opened again.
 */
async function pickModel(name: string, screenshot?: string): Promise<void> {
  const picker = page.locator('.model-picker-item a.model-picker-name');
  const chosen = () => page.waitForFunction((n) => !!document.querySelector(`.model-picker-item a.model-picker-name[aria-label*="${n}"]`), name, { timeout: PATIENCE });
  const end = Date.now() + PATIENCE;
  for (;;) {
    await picker.click();
    const filter = page.locator('.context-view input.action-list-filter-input');
    await filter.waitFor({ timeout: PATIENCE });
    await filter.fill(name);
    const item = page.locator('.context-view .monaco-list-row[role="option"]').filter({ hasText: name }).first();
    const shown = await item.waitFor({ timeout: 10_000 }).then(() => true, () => false);
    if (shown) {
      if (screenshot) await shot(screenshot);
      // On a busy machine the list may be drawn again between finding the row and the
      // click; the click then finds no row: open the picker again.
      if (await item.click({ timeout: 10_000 }).then(() => true, () => false)) {
        await chosen();
        return;
      }
    }
    await shot(`picker-without-${name.replace(/[^a-z0-9]+/gi, '-')}`);
    await page.keyboard.press('Escape');
    if (Date.now() > end) throw new Error(`the model picker never listed ${name}`);
  }
}

/** A button of the last response (stream.button). */
const chatButton = (title: string): Locator => lastResponse().locator('.monaco-button').filter({ hasText: title }).first();

/**
 * Answers the quick input VS Code shows (a pick or an input box) whose text or
 * placeholder mentions what: types answer and presses Enter (a pick filters to the typed
 * item).
 */
async function quickInput(what: string, answer: string, screenshot?: string): Promise<void> {
  await page.waitForFunction(
    (w) => {
      const widget = document.querySelector('.quick-input-widget') as HTMLElement | null;
      if (!widget || widget.style.display === 'none' || widget.offsetParent === null) return false;
      const input = widget.querySelector('.quick-input-box input') as HTMLInputElement | null;
      return widget.innerText.includes(w) || !!input?.placeholder.includes(w);
    },
    what,
    { timeout: PATIENCE, polling: 50 },
  );
  if (screenshot) await shot(screenshot);
  await page.locator('.quick-input-widget .quick-input-box input').fill(answer);
  await page.keyboard.press('Enter');
}

/** Waits for a notification toast whose text matches. */
async function notification(re: RegExp): Promise<void> {
  await page.waitForFunction(
    ([source, flags]) => Array.from(document.querySelectorAll('.notifications-toasts .notification-list-item, .notification-toast')).some((n) => new RegExp(source, flags).test((n as HTMLElement).innerText)),
    [re.source, re.flags] as const,
    { timeout: PATIENCE, polling: 50 },
  );
}

/** The confirmation widget of a tool call waiting for the user. */
const confirmation = () => page.locator('.chat-confirmation-widget-container').filter({ has: page.locator('.chat-confirmation-widget-buttons') }).last();

/**
 * What the test extension saw. It runs once the extensions are active, so waiting for it
 * also waits for the parley extension's activation.
 */
async function testExtensionResults(): Promise<{ done: boolean; error?: string; steps: Record<string, any> } | undefined> {
  const end = Date.now() + PATIENCE * 2;
  let results: { done: boolean; error?: string; steps: Record<string, any> } | undefined;
  while (Date.now() < end) {
    if (fs.existsSync(vs.resultsFile)) {
      results = JSON.parse(fs.readFileSync(vs.resultsFile, 'utf8')); // written whole (renamed into place)
      if (results?.done) break;
    }
    await new Promise((r) => setTimeout(r, 200)); // the test extension writes a file; nothing to wait on
  }
  return results;
}

/** A test that leaves a screenshot of the page when it fails. */
function uiTest(name: string, body: () => Promise<void>): void {
  test(name, async () => {
    try {
      await body();
    } catch (err) {
      await page.screenshot({ path: path.join(shots, `failed-${name.replace(/[^a-z0-9]+/gi, '-')}.png`) }).catch(() => undefined);
      const parley = vs.console.filter((l) => /parley/i.test(l));
      if (parley.length) process.stderr.write(`workbench console (parley):\n${parley.join('\n')}\n`);
      throw err;
    }
  });
}

describe('parley in a real VS Code, as published for this platform', { timeout: 10 * 60_000 }, () => {
  before(async () => {
    fs.mkdirSync(shots, { recursive: true });
    const inst = installsFromEnv();
    assert.ok(inst.vsix, 'PARLEY_VSIX names the .vsix for this platform (scripts/ci.sh sets it)');
    // No parley.path: the extension must find the parley it carries.
    vs = await startVSCode(inst, { extension: { vsix: inst.vsix }, parleyPath: false, settings: { 'chat.allowAnonymousAccess': true } });
    page = vs.page;
  });
  after(async () => {
    await vs?.stop();
    fs.writeFileSync(path.join(artifacts, 'timings.json'), JSON.stringify(timings, null, 2) + '\n');
    process.stderr.write(`timings (ms): ${JSON.stringify(timings)}\n`);
  });

  uiTest('another extension: selectChatModels, a streamed reply, a round trip with two tools', async () => {
    const results = await testExtensionResults();
    assert.ok(results?.done, `the test extension did not finish: ${JSON.stringify(results)}\n${vs.log()}`);
    assert.equal(results.error, undefined);
    const s = results.steps;
    assert.ok(s.models.some((m: { id: string; name: string; vendor: string }) => m.id === 'eliza' && m.name === 'Eliza (parley)' && m.vendor === 'parley'), JSON.stringify(s.models));
    assert.equal(s.cold.text.trim(), 'hello from another extension');
    assert.equal(s.warm.text.trim(), 'hello again');
    assert.deepEqual(s.toolCalls.map((c: { name: string }) => c.name).sort(), ['parley_e2e_add', 'parley_e2e_echo']);
    assert.match(s.afterTools, /OK: echo: hi/);
    assert.match(s.afterTools, /OK: 5/);
    assert.equal(s.tokens, 3);
    assert.equal(s.killedBackends, 1, 'one backend process, started by the extension');
    const extensions = fs.realpathSync(path.join(vs.root, 'extensions'));
    assert.ok(s.backendExecutables.every((exe: string) => exe.startsWith(extensions + path.sep) && exe.endsWith(`${path.sep}bin${path.sep}parley`)),
      `the backend is the parley the .vsix carries: ${JSON.stringify(s.backendExecutables)}`);
    assert.match(vs.parleyOutput(), /\[client\] parley v\d+\.\d+\.\d+\S* at \S+\/bin\/parley \(carried by this extension\): the version of this extension/,
      'the extension checked the version of the parley it carries');
    assert.equal(s.coldBackend.text.trim(), 'back from the dead', 'the request after the backend died is answered');
    timings['lm first part, cold (first request, agent not started)'] = s.cold.firstPartMs;
    timings['lm first part, cold backend (killed: backend, agent and session all start)'] = s.coldBackend.firstPartMs;
    timings['lm first part, warm (agent running, new conversation)'] = s.warm.firstPartMs;
    assert.ok(s.spareReady, 'after "parley: Restart backend" and a listing, parley opened a session of the last chosen agent (lm/prepareSession)');
    assert.equal(s.prepared.text.trim(), 'ready and waiting');
    assert.ok(s.preparedTookSpare, 'the new conversation took the prepared session');
    timings['lm first part, after a restart (backend listed, last chosen agent prepared)'] = s.prepared.firstPartMs;
  });

  uiTest('Chat view: a parley model chosen in the picker answers', async () => {
    await newChat();
    await pickModel('Eliza (parley)', '01-model-picker-eliza-parley');
    const sent = await send('slowly hello from the chat view');
    const first = await waitForResponseText(/hello/);
    await waitForResponseText(/hello from the chat view/);
    timings['chat view first words (agent mode prompt, ms from Enter)'] = first - sent;
    await waitForResponseDone();
    await shot('02-chat-view-reply');
  });

  uiTest('@parley: a reply', async () => {
    await newChat();
    const sent = await send('@parley slowly hi there from parley');
    const first = await waitForResponseText(/hi/);
    await waitForResponseText(/hi there from parley/);
    timings['@parley first words, first turn (ms from Enter)'] = first - sent;
    const sent2 = await send('@parley slowly and once more');
    const first2 = await waitForResponseText(/and/);
    await waitForResponseText(/and once more/);
    timings['@parley first words, second turn (ms from Enter)'] = first2 - sent2;
    // A slash command parley's package.json does not declare reaches the agent as typed.
    await send('@parley /slowly via a slash command');
    await waitForResponseText(/via a slash command/);
    await shot('03-parley-reply');
  });

  uiTest('@parley: a tool call shown with its past-tense message, through stable APIs', async () => {
    await newChat();
    await send('@parley think it over\ntool call Build the project');
    await waitForResponseText(/tool call Build the project: completed/);
    await waitForResponseDone();
    await waitForResponseText(/✓\s*Built\sthe\sproject/);
    await shot('04-parley-tool-call');
  });

  uiTest('@parley: a permission confirmed by clicking', async () => {
    await newChat();
    await send('@parley request permission deploy the site');
    const widget = confirmation();
    await widget.waitFor({ timeout: PATIENCE });
    assert.match(await widget.innerText(), /Allow the agent to\s+deploy.the.site/);
    await shot('05-parley-permission-asked');
    await widget.locator('.chat-confirmation-widget-buttons a.monaco-button:not(.secondary):not(.monaco-dropdown-button)').first().click();
    await waitForResponseText(/permission: allow_once/);
    await shot('06-parley-permission-allowed');
  });

  uiTest('@parley: a permission declined by clicking', async () => {
    await newChat();
    await send('@parley request permission delete the repository');
    const widget = confirmation();
    await widget.waitFor({ timeout: PATIENCE });
    await widget.locator('.chat-confirmation-widget-buttons a.monaco-button.secondary').filter({ hasText: /Skip|Deny|Cancel/ }).first().click();
    await waitForResponseText(/Declined/);
    await waitForResponseDone();
    assert.doesNotMatch(await lastResponse().innerText(), /allow_once/);
    await shot('07-parley-permission-declined');
    await send('@parley slowly after the refusal');
    await waitForResponseText(/after the refusal/);
    assert.doesNotMatch(await lastResponse().innerText(), /allow/);
  });

  uiTest("@parley: the agent's question, answered in VS Code's quick input", async () => {
    await newChat();
    await send('@parley ask me about tests');
    // One field at a time: the name typed, the colour and the newsletter picked.
    await quickInput('Your name', 'Ada', '14-parley-question-asked');
    await quickInput('Favourite colour', 'Green');
    await quickInput('Subscribe', 'Yes');
    await waitForResponseText(/you answered: color="green", name="Ada", subscribe=true/);
    await waitForResponseDone();
    await shot('15-parley-question-answered');
  });

  uiTest("@parley: the agent's settings, shown with /config and changed with a click", async () => {
    await newChat();
    await send('@parley offer settings');
    await waitForResponseText(/I offer you 2 settings/);
    await waitForResponseDone();
    await send('@parley /config '); // the space closes the suggestion of /config: Enter sends
    await waitForResponseText(/Mood: Calm/);
    await waitForResponseDone();
    await shot('16-parley-config');
    await chatButton('Change Mood').click();
    await quickInput('Mood', 'Cheerful');
    await notification(/Mood is now Cheerful/);
    await send('@parley show settings');
    await waitForResponseText(/settings: mood=cheerful, verbose=false/);
    await shot('17-parley-config-changed');
  });

  uiTest('@parley: the files a turn changed, their diff, and an undo by a click', async () => {
    await newChat();
    const file = path.join(vs.workspace, 'notes.txt');
    await send('@parley write file notes.txt with hello from the end-to-end test');
    await waitForResponseText(/Files changed/);
    await waitForResponseDone();
    assert.equal(fs.readFileSync(file, 'utf8'), 'hello from the end-to-end test\n');
    await shot('18-parley-changed-files');
    await chatButton('Diff notes.txt').click();
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: PATIENCE });
    await shot('19-parley-diff');
    await chatButton('Undo notes.txt').click();
    await notification(/undid turn \d+: notes\.txt deleted/);
    assert.equal(fs.existsSync(file), false, 'the undo removed the file the turn created');
    await shot('20-parley-undone');
  });

  uiTest("VS Code's agent mode with a parley model drives a tool", async () => {
    await newChat();
    await pickModel('Eliza (parley)');
    await send('use tool vscode_tools::parley_e2e_echo with {"text":"from agent mode"}');
    // VS Code asks before it runs another extension's tool: allow it when it does.
    const done = waitForResponseText(/OK: echo: from agent mode/, PATIENCE * 2);
    const asked = confirmation().waitFor({ timeout: PATIENCE * 2 }).then(() => true, () => false);
    if (await Promise.race([done.then(() => false), asked])) {
      await shot('08-agent-mode-tool-confirmation');
      await confirmation().locator('.chat-confirmation-widget-buttons a.monaco-button:not(.secondary):not(.monaco-dropdown-button)').first().click();
    }
    await done;
    await shot('09-agent-mode-tool-result');
  });

  uiTest("VS Code's agent mode: an agent action skipped is refused, and the agent goes on", async () => {
    await newChat();
    await pickModel('Eliza (parley)');
    await send('request permission format the disk');
    const widget = confirmation();
    await widget.waitFor({ timeout: PATIENCE });
    assert.match(await widget.innerText(), /Allow the agent to\s+format.the.disk/);
    await shot('10-agent-mode-action-asked');
    await widget.locator('.chat-confirmation-widget-buttons a.monaco-button.secondary').filter({ hasText: /Skip/ }).first().click();
    await waitForResponseText(/permission: reject_once/);
    await waitForResponseDone();
    assert.doesNotMatch(await lastResponse().innerText(), /allow_once/);
    await shot('11-agent-mode-action-skipped');
  });
});

describe('the proposed-API flavour in a VS Code that grants it', { timeout: 5 * 60_000 }, () => {
  before(async () => {
    const inst = installsFromEnv();
    assert.ok(inst.vsixProposed, 'PARLEY_VSIX_PROPOSED names the proposed flavour (scripts/ci.sh sets it)');
    vs = await startVSCode(inst, { extension: { vsix: inst.vsixProposed }, proposedApi: true, selfTest: 'activation', settings: { 'chat.allowAnonymousAccess': true } });
    page = vs.page;
    await testExtensionResults();
  });
  after(async () => {
    await vs?.stop();
  });

  uiTest('@parley: the tool call is a VS Code tool entry', async () => {
    await pickModel('Eliza (parley)'); // VS Code's default is the first model listed (Claude)
    await send('@parley think it over\ntool call Build the project');
    await waitForResponseText(/tool call Build the project: completed/);
    await waitForResponseDone();
    await expandSteps();
    await lastResponse().locator('.chat-tool-invocation-part').filter({ hasText: /Built.the.project/ }).first().waitFor({ state: 'visible', timeout: PATIENCE });
    await shot('12-proposed-api-tool-entry');
  });
});

describe('an editor without the language model provider API', { timeout: 5 * 60_000 }, () => {
  before(async () => {
    vs = await startVSCode(installsFromEnv(), { extension: { folder: true, withoutLanguageModelProvider: true }, selfTest: 'activation', standInModel: true, settings: { 'chat.allowAnonymousAccess': true } });
    page = vs.page;
  });
  after(async () => {
    await vs?.stop();
  });

  uiTest('the extension activates, offers no models, and @parley answers', async () => {
    const results = await testExtensionResults();
    assert.ok(results?.done, `the test extension did not finish: ${JSON.stringify(results)}`);
    assert.equal(results.error, undefined);
    assert.equal(results.steps.installed, true);
    assert.equal(results.steps.active, true, `the parley extension did not activate:\n${vs.log()}`);
    assert.deepEqual(results.steps.models, []);
    assert.match(vs.parleyOutput(), /this editor has no language model provider API/);
    // The chat sends nothing without a model: the editor's own (here the test extension's).
    await pickModel('Stand-in model');
    await send('@parley slowly hello without models');
    await waitForResponseText(/hello without models/);
    await shot('13-without-lm-provider');
  });
});
