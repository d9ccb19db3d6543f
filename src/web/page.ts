import { readFile } from 'node:fs/promises';

/**
 * The page's HTML. Both pages are fixed text with no data in them (what the sign-in page says back is
 * escaped): the inbox page fills itself from the JSON API with its one script file, `inbox.js`, which
 * builds every element with `textContent`, so nothing a tool or a model wrote can become markup.
 */
export function inboxPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Wardrik inbox</title>
<link rel="stylesheet" href="inbox.css">
<script src="inbox.js" defer></script>
</head>
<body>
<a class="skip" href="#pending">Skip to the pending items</a>
<header>
  <h1>Wardrik inbox</h1>
  <p id="who" aria-live="polite"></p>
  <button type="button" id="sign-out" hidden>Sign out</button>
</header>
<main>
  <p id="status" role="status" aria-live="polite"></p>
  <section aria-labelledby="pending-title">
    <h2 id="pending-title">Waiting for you <span id="pending-count"></span></h2>
    <ol id="pending" class="items" tabindex="-1"></ol>
  </section>
  <section id="run" aria-labelledby="run-title" hidden>
    <h2 id="run-title" tabindex="-1">Run</h2>
    <button type="button" id="run-close">Close the run</button>
    <div id="run-body"></div>
  </section>
  <section aria-labelledby="answered-title">
    <h2 id="answered-title">Answered</h2>
    <ol id="answered" class="items"></ol>
  </section>
</main>
</body>
</html>
`;
}

/**
 * The sign-in form: a shared token and the name to record (`token` mode), or a person's own token, which
 * says who they are (`person` mode); or a note that the app's own login comes first (`app` mode). `item`
 * is the item a notification linked to, carried through the sign-in.
 */
export function signInPage(mode: 'token' | 'person' | 'app', error?: string, item?: string): string {
  const body =
    mode === 'app'
      ? '<p>Sign in to the app first: this inbox uses its login. Then open this page again.</p>'
      : `<form method="post" action="sign-in${item === undefined ? '' : `?item=${encodeURIComponent(item)}`}">
  ${error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`}
  <p><label for="token">Inbox token</label><br><input id="token" name="token" type="password" autocomplete="current-password" required autofocus></p>
${mode === 'person' ? '' : '  <p><label for="name">Your name, recorded with each of your answers</label><br><input id="name" name="name" type="text" autocomplete="name" maxlength="80"></p>\n'}  <p><button type="submit">Sign in</button></p>
</form>
<p class="hint">${mode === 'person' ? 'Use your own token: your answers are recorded under the name it was given to.' : 'The token is the one <code>wardrik web</code> printed when it started, or the one in <code>WARDRIK_WEB_TOKEN</code>.'}</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Wardrik inbox</title>
<link rel="stylesheet" href="inbox.css">
</head>
<body class="sign-in">
<main>
<h1>Wardrik inbox</h1>
${body}
</main>
</body>
</html>
`;
}

const TYPES: Readonly<Record<string, string>> = {
  'inbox.js': 'text/javascript; charset=utf-8',
  'inbox.css': 'text/css; charset=utf-8',
};
const cache = new Map<string, Promise<Buffer>>();

/** The page's script or style sheet, read once from `assets/` beside this module. */
export async function asset(name: string): Promise<{ readonly type: string; readonly body: Buffer }> {
  const type = TYPES[name];
  if (type === undefined) throw new Error(`No inbox asset "${name}".`);
  let body = cache.get(name);
  if (body === undefined) {
    body = readFile(new URL(`./assets/${name}`, import.meta.url));
    cache.set(name, body);
    body.catch(() => cache.delete(name));
  }
  return { type, body: await body };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
