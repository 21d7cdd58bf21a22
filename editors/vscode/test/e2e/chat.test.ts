// parley's own chat (the web chat's page in a webview) in a real VS Code (code-server,
// headless Chromium), with no Copilot sign-in: "parley: Open Chat" opens it, Eliza
// answers, and a permission question is answered with a click. Screenshots go to
// PARLEY_VSCODE_ARTIFACTS/screenshots (chat-*.png).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { installsFromEnv, startVSCode, type VSCode } from './harness';

const artifacts = process.env.PARLEY_VSCODE_ARTIFACTS || path.resolve(__dirname, '../../../test-output');
const shots = path.join(artifacts, 'screenshots');
const PATIENCE = 60_000;

let vs: VSCode;
let page: Page;

/** The page inside the webview (VS Code nests it in two frames). */
function chat(): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

describe('parley\'s chat in a VS Code webview', { timeout: 5 * 60_000 }, () => {
  before(async () => {
    fs.mkdirSync(shots, { recursive: true });
    const inst = installsFromEnv();
    // The test extension runs "parley: Open Chat" once parley is active.
    vs = await startVSCode(inst, { selfTest: 'chat' });
    page = vs.page;
  });
  after(async () => {
    await vs?.stop();
  });

  test('Open Chat: Eliza replies, and a permission is allowed by a click', async () => {
    try {
      const input = chat().locator('textarea.input');
      await input.waitFor({ timeout: PATIENCE });
      await input.fill('I am worried about my tests');
      await input.press('Enter');
      await chat().locator('.msg.agent', { hasText: 'worried about your tests' }).waitFor({ timeout: PATIENCE });
      await page.screenshot({ path: path.join(shots, 'chat-reply.png') });
      await input.fill('request permission rm -rf build');
      await input.press('Enter');
      const allow = chat().locator('.card.tool.asking button[data-option=allow_once]');
      await allow.waitFor({ timeout: PATIENCE });
      await page.screenshot({ path: path.join(shots, 'chat-permission.png') });
      await allow.click();
      await chat().locator('.msg.agent', { hasText: 'permission: allow_once' }).waitFor({ timeout: PATIENCE });
      await page.screenshot({ path: path.join(shots, 'chat-permission-allowed.png') });
      assert.match(vs.parleyOutput(), /\[chat\] started \S+ .*acp --cwd/);
    } catch (err) {
      await page.screenshot({ path: path.join(shots, 'failed-chat.png') }).catch(() => undefined);
      if (fs.existsSync(vs.resultsFile)) process.stderr.write(`test extension: ${fs.readFileSync(vs.resultsFile, 'utf8')}\n`);
      process.stderr.write(`parley output:\n${vs.parleyOutput()}\ncode-server log:\n${vs.log().slice(-4000)}\nconsole:\n${vs.console.join("\n")}\n`);
      throw err;
    }
  });
});
