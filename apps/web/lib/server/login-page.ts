// The page a browser gets without a credential (401): where to find the token, and a form that
// opens the app with it (GET /?token=…, which the gate trades for the session cookie). No script.

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function loginPage(message: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arbor: sign in</title>
<style>
  :root { color-scheme: light dark; font-family: ui-sans-serif, system-ui, sans-serif; }
  body { margin: 0; min-height: 100dvh; display: grid; place-items: center; background: Canvas; }
  main { max-width: 28rem; padding: 2rem; }
  h1 { font-size: 1.25rem; margin: 0 0 .75rem; }
  p { line-height: 1.5; opacity: .85; }
  code { font-size: .9em; }
  form { display: flex; gap: .5rem; margin-top: 1rem; }
  input { flex: 1; padding: .5rem .625rem; border: 1px solid #a1a1aa; border-radius: .375rem; font: inherit; }
  button { padding: .5rem .875rem; border: 0; border-radius: .375rem; background: #059669; color: white; font: inherit; cursor: pointer; }
</style>
</head>
<body>
<main>
  <h1>Arbor needs its token</h1>
  <p>${escapeHtml(message)}: the line <code>Arbor is running at http://…/?token=…</code> in the
  server's output. The token is also in the file <code>token</code> of Arbor's data directory
  (<code>.data/</code> by default), or it is the <code>ARBOR_TOKEN</code> variable.</p>
  <form method="get" action="/">
    <input name="token" type="password" autocomplete="current-password" placeholder="Paste the token" aria-label="Token" required>
    <button type="submit">Open</button>
  </form>
</main>
</body>
</html>
`;
}
