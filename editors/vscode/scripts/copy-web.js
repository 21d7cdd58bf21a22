// Copies the web chat's built page (internal/webui/dist, built from web/ and committed)
// into media/web, where the chat webview loads it from: the extension and `parley web`
// show the same page.
const fs = require('node:fs');
const path = require('node:path');

const from = path.resolve(__dirname, '../../../internal/webui/dist');
const to = path.resolve(__dirname, '../media/web');
fs.mkdirSync(to, { recursive: true });
for (const name of ['app.js', 'style.css']) fs.copyFileSync(path.join(from, name), path.join(to, name));
