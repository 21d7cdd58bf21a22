// Preloaded with --require: makes require('vscode') return the mock.
import Module = require('node:module');
import * as path from 'node:path';

const mockPath = path.join(__dirname, 'vscode-mock.js');
const m = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolve = m._resolveFilename;
m._resolveFilename = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? mockPath : resolve.call(this, request, ...rest);
};
