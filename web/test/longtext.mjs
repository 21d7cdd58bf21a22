// The scripted agent's long reply (its `long` command) and what the page must show of it.
export const longText = Array.from({ length: 800 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog\n`).join("");
