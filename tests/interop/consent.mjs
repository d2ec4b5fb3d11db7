// The owner's consent, given in a real Chromium (playwright-core driving the system's browser) on
// the web UI's consent page, for the OAuth interop tests (oauth_python.py, oauth_ts.mjs): signs in
// with the admin token as the web UI keeps it (localStorage `ragdown.token`), opens the
// authorization URL the client built, waits for the consent page, checks that it names the client
// and the folder asked for, presses the button named exactly **Allow** (or **Deny**), and waits
// until the browser has reached the client's redirect URI (the client's own callback server takes
// the code from there). With --only-read it ticks "Only let it read" first. With --expect-error TEXT
// it instead expects the authorization URL to stop at the server's error page saying TEXT, the
// browser never sent to the redirect URI. With --revoke NAME, the first argument is the server's
// origin: the owner revokes the app NAME under Settings → Access (its Revoke button, then Revoke in
// the confirmation) and the row goes away.
//
//   node consent.mjs AUTHORIZE_URL ADMIN_TOKEN [--client NAME] [--folder PATH] [--deny] [--only-read]
//   node consent.mjs AUTHORIZE_URL ADMIN_TOKEN --expect-error TEXT
//   node consent.mjs SERVER_ORIGIN ADMIN_TOKEN --revoke NAME
//
// Exits 0 when all of that happened, else prints why and exits 1. CHROMIUM names the browser
// (default /usr/bin/chromium).

import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

const { values: opts, positionals } = parseArgs({
    allowPositionals: true,
    options: {
        client: { type: 'string' },
        folder: { type: 'string' },
        deny: { type: 'boolean', default: false },
        'only-read': { type: 'boolean', default: false },
        'expect-error': { type: 'string' },
        revoke: { type: 'string' }
    }
});
const [authorizeUrl, adminToken] = positionals;
if (!authorizeUrl || !adminToken) {
    process.stderr.write('usage: node consent.mjs AUTHORIZE_URL ADMIN_TOKEN [--client NAME] [--folder PATH] [--deny] [--only-read]\n');
    process.exit(2);
}
/** Generous: a hang detector on a slow, shared machine, not a speed test. */
const WITHIN_MS = 60_000;

const authorize = new URL(authorizeUrl);
const redirectUri = authorize.searchParams.get('redirect_uri') ?? '';

function check(condition, message) {
    if (!condition) throw new Error(message);
}

const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox']
});
try {
    const page = await browser.newPage();
    page.setDefaultTimeout(WITHIN_MS);
    // Signed in as the web UI keeps it: the token in this origin's local storage.
    await page.goto(new URL('/', authorize).href);
    await page.evaluate(token => localStorage.setItem('ragdown.token', token), adminToken);

    if (opts.revoke !== undefined) {
        await page.goto(new URL('/settings?tab=access', authorize).href);
        const revoke = page.getByRole('button', { name: `Revoke ${opts.revoke}`, exact: true });
        await revoke.click();
        await page.getByRole('dialog', { name: `Revoke ${opts.revoke}?` }).getByRole('button', { name: 'Revoke', exact: true }).click();
        await revoke.waitFor({ state: 'detached' });
        process.stderr.write(`ok: chromium: ${opts.revoke} revoked under Settings → Access\n`);
    } else if (opts['expect-error'] !== undefined) {
        const response = await page.goto(authorize.href);
        check(response?.status() === 400, `expected the error page (400), got ${response?.status()} at ${page.url()}`);
        check(page.url().startsWith(authorize.origin + '/oauth/authorize'), `the browser left the server: ${page.url()}`);
        const text = await page.locator('body').innerText();
        check(text.includes(opts['expect-error']), `the error page does not say ${JSON.stringify(opts['expect-error'])}: ${text}`);
        process.stderr.write(`ok: chromium: the authorization stops at the error page: ${text.replace(/\s+/g, ' ').trim()}\n`);
    } else {
        await page.goto(authorize.href);
        await page.waitForURL(url => url.pathname.startsWith('/oauth/consent/'));
        const allow = page.getByRole('button', { name: 'Allow', exact: true });
        const deny = page.getByRole('button', { name: 'Deny', exact: true });
        await allow.waitFor();
        const heading = await page.getByRole('heading', { level: 1 }).innerText();
        if (opts.client !== undefined) {
            check(heading.includes(opts.client), `the consent page does not name the client ${opts.client}: ${heading}`);
        }
        if (opts.folder !== undefined) {
            const folder = page.locator('dt', { hasText: /^Folder$/ }).locator('xpath=following-sibling::dd[1]');
            const shown = await folder.innerText();
            check(shown.split('\n')[0].trim() === opts.folder, `the consent page shows the folder ${JSON.stringify(shown)}, not ${opts.folder}`);
        }
        if (opts['only-read']) await page.getByRole('checkbox', { name: 'Only let it read' }).check();
        await (opts.deny ? deny : allow).click();
        // The page sends the answer, then opens the redirect the server gave: the client's callback.
        await page.waitForURL(url => url.href.startsWith(redirectUri + '?'));
        const back = new URL(page.url());
        check(back.searchParams.get('iss') === authorize.origin, `iss ${back.searchParams.get('iss')} is not ${authorize.origin}`);
        const what = opts.deny ? 'Deny' : 'Allow';
        process.stderr.write(`ok: chromium: ${what} pressed on the consent page for "${heading}", back at ${back.origin}${back.pathname}\n`);
    }
} catch (err) {
    process.stderr.write(`consent.mjs: ${err.stack || err}\n`);
    process.exitCode = 1;
} finally {
    await browser.close();
}
