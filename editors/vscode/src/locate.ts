// Finding the parley binary: the parley.path setting, then PATH, then where `go install`
// puts binaries (which is often not on PATH).

import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const INSTALL_COMMAND = 'go install github.com/parley-acp/parley/cmd/parley@latest';

/** parley could not be found; the message says where we looked and how to install it. */
export class ParleyNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParleyNotFoundError';
  }
}

async function executable(file: string): Promise<boolean> {
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) return false;
    await fs.access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folders `go install` writes to: $GOBIN, else $GOPATH/bin for each GOPATH entry, else ~/go/bin. */
function goBinDirs(env: NodeJS.ProcessEnv): string[] {
  if (env.GOBIN) return [env.GOBIN];
  const gopath = env.GOPATH || path.join(os.homedir(), 'go');
  return gopath.split(path.delimiter).filter(Boolean).map((p) => path.join(p, 'bin'));
}

/**
 * Returns the absolute path of parley. configured is the parley.path setting ("" when
 * unset); a setting that points nowhere is an error, never silently replaced by PATH.
 */
export async function locateParley(configured: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const name = process.platform === 'win32' ? 'parley.exe' : 'parley';
  if (configured) {
    const resolved = configured.startsWith('~/') ? path.join(os.homedir(), configured.slice(2)) : configured;
    if (await executable(resolved)) return path.resolve(resolved);
    throw new ParleyNotFoundError(
      `The setting parley.path is "${configured}", which is not an executable file. Fix the setting, or clear it to use parley from PATH.`,
    );
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...dirs, ...goBinDirs(env)]) {
    const candidate = path.join(dir, name);
    if (await executable(candidate)) return path.resolve(candidate);
  }
  throw new ParleyNotFoundError(
    `parley was not found on PATH or in ${goBinDirs(env).join(', ')}. Install it with \`${INSTALL_COMMAND}\` (Go 1.26 or later), or set parley.path to the binary.`,
  );
}
