// OAuth 2.1 (MCP authorization, 2026-07-28) with the official MCP TypeScript SDK's auth flow
// (@modelcontextprotocol/client: an `OAuthClientProvider` given to `StreamableHTTPClientTransport`
// as its `authProvider`, `finishAuth`, `auth`) against a real `ragdownd serve`, the owner's
// consent given in Chromium on the web UI's consent page (consent.mjs), over real HTTP:
//
// - dynamic client registration: the transport's 401 starts discovery, registration and the
//   authorization (PKCE S256, `resource`), the browser returns to the client's loopback callback,
//   `finishAuth` checks `iss` (RFC 9207) and trades the code; the tools are listed (the write tools
//   too) and a read and a write tool called (the file appears on disk); `auth()` refreshes with the
//   refresh token (both tokens new, the call works); the owner revokes the grant under Settings →
//   Access in Chromium, and the SDK's next call finds its token and refresh token refused and asks
//   for a new authorization;
// - a client ID metadata document (`clientMetadataUrl`, https on 127.0.0.1, fetched by the
//   server), the owner narrowing it on the consent page with "Only let it read": the token's scope
//   is `read`, no write tool is listed, and a write is refused.
//
//   node oauth_ts.mjs --url http://127.0.0.1:PORT --token ADMIN --docs DIR --consent consent.mjs \
//       --cimd-dir DIR --cimd-base https://127.0.0.1:PORT2 --cimd-log FILE

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const WRITE_TOOLS = ['ragdown_delete', 'ragdown_edit', 'ragdown_move', 'ragdown_remember', 'ragdown_write'];
const READ_TOOLS = ['ragdown_backlinks', 'ragdown_list', 'ragdown_read_doc', 'ragdown_recall', 'ragdown_stats'];
const WITHIN_MS = 60_000;

const { values: args } = parseArgs({
    options: Object.fromEntries(['url', 'token', 'docs', 'consent', 'cimd-dir', 'cimd-base', 'cimd-log'].map(name => [name, { type: 'string' }]))
});
for (const name of ['url', 'token', 'docs', 'consent', 'cimd-dir', 'cimd-base', 'cimd-log']) {
    assert.ok(args[name], `--${name} is required`);
}
const ENDPOINT = new URL(`${args.url}/mcp/ops`);

function ok(message) {
    process.stderr.write(`ok: typescript sdk oauth: ${message}\n`);
}

/** The client's loopback redirect URI: each request's query is kept for `next()`. */
async function callbackServer() {
    const queries = [];
    let wake = () => {};
    const server = http.createServer((req, res) => {
        const url = new URL(req.url, 'http://127.0.0.1');
        if (url.pathname === '/callback') {
            queries.push(url.searchParams);
            wake();
        }
        res.writeHead(url.pathname === '/callback' ? 200 : 404, { 'Content-Type': 'text/html' });
        res.end('<!doctype html><title>done</title><p>You can close this window.');
    });
    await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
    return {
        uri: `http://127.0.0.1:${server.address().port}/callback`,
        async next() {
            const deadline = Date.now() + WITHIN_MS;
            while (queries.length === 0) {
                if (Date.now() > deadline) throw new Error('no callback within a minute');
                await new Promise(resolve => {
                    wake = resolve;
                    setTimeout(resolve, 200);
                });
            }
            return queries.shift();
        },
        close: () => new Promise(resolve => server.close(resolve))
    };
}

/** consent.mjs in Chromium for `url`, with its flags; resolves when it succeeded. */
function consent(url, flags) {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [args.consent, url, args.token, ...flags], { stdio: ['ignore', 'inherit', 'inherit'] });
        child.on('error', reject);
        child.on('exit', code => (code === 0 ? resolve() : reject(new Error(`consent.mjs exited with ${code}`))));
    });
}

/** The SDK's `OAuthClientProvider`, in memory; the authorization URL is answered in Chromium. */
class Provider {
    constructor(name, callback, { cimd, browser }) {
        this.name = name;
        this.callback = callback;
        if (cimd) this.clientMetadataUrl = cimd;
        this.browser = browser;
        this.authorizations = [];
        this.saved = [];
        this.consentAllowed = true;
    }
    get redirectUrl() {
        return this.callback.uri;
    }
    get clientMetadata() {
        return {
            client_name: this.name,
            redirect_uris: [this.callback.uri],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none'
        };
    }
    state() {
        this.lastState = randomBytes(16).toString('base64url');
        return this.lastState;
    }
    clientInformation() {
        return this.client;
    }
    saveClientInformation(info) {
        this.client = info;
    }
    tokens() {
        return this.current;
    }
    saveTokens(tokens) {
        this.current = tokens;
        this.saved.push(tokens);
    }
    saveCodeVerifier(verifier) {
        this.verifier = verifier;
    }
    codeVerifier() {
        return this.verifier;
    }
    saveDiscoveryState(state) {
        this.discovery = state;
    }
    discoveryState() {
        return this.discovery;
    }
    /** What the server said is no longer valid (a revoked grant's refresh token: 'tokens'). */
    invalidateCredentials(scope) {
        this.invalidated = [...(this.invalidated ?? []), scope];
        if (scope === 'all' || scope === 'tokens') this.current = undefined;
        if (scope === 'all' || scope === 'client') this.client = undefined;
        if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
        if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
    }
    async redirectToAuthorization(url) {
        this.authorizations.push(url.href);
        if (!this.consentAllowed) return;
        assert.equal(`${url.origin}${url.pathname}`, `${args.url}/oauth/authorize`);
        assert.equal(url.searchParams.get('resource'), ENDPOINT.href, 'resource (RFC 8707)');
        assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
        if (this.clientMetadataUrl) assert.equal(url.searchParams.get('client_id'), this.clientMetadataUrl);
        await consent(url.href, ['--client', this.name, '--folder', 'ops', ...this.browser]);
    }
}

const transport = provider => new StreamableHTTPClientTransport(ENDPOINT, { authProvider: provider });

async function connected(provider) {
    const client = new Client({ name: 'ragdown-interop-ts-oauth', version: '0' });
    await client.connect(transport(provider));
    return client;
}

/** The SDK's flow from nothing: a 401, the authorization in Chromium, finishAuth, connected. */
async function authorize(provider) {
    const first = transport(provider);
    const client = new Client({ name: 'ragdown-interop-ts-oauth', version: '0' });
    await assert.rejects(client.connect(first), UnauthorizedError, 'the first connect needs an authorization');
    assert.equal(provider.authorizations.length, 1, 'one authorization asked for');
    const params = await provider.callback.next();
    assert.equal(params.get('state'), provider.lastState, 'state');
    assert.equal(params.get('iss'), args.url, 'iss');
    // The SDK checks iss against the authorization server's metadata before it trades the code.
    await first.finishAuth(params);
    assert.ok(provider.current?.access_token?.startsWith('rda_'), JSON.stringify(provider.current));
    assert.ok(provider.current.refresh_token?.startsWith('rdr_'));
    return connected(provider);
}

async function toolNames(client) {
    return (await client.listTools()).tools.map(tool => tool.name).sort();
}

async function grantOf(clientId) {
    const response = await fetch(`${args.url}/api/access/grants`, { headers: { Authorization: `Bearer ${args.token}` } });
    assert.equal(response.status, 200);
    return (await response.json()).find(grant => grant.client_id === clientId);
}

async function mcpStatus(accessToken) {
    const response = await fetch(ENDPOINT, {
        method: 'POST',
        headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } }
        })
    });
    await response.body?.cancel();
    return response.status;
}

async function flowDcr() {
    const callback = await callbackServer();
    const provider = new Provider('Interop TypeScript (DCR)', callback, { browser: [] });
    try {
        let client = await authorize(provider);
        assert.ok(!provider.client.client_id.startsWith('https://'), 'registered dynamically');
        const tools = await toolNames(client);
        for (const name of [...WRITE_TOOLS, ...READ_TOOLS]) assert.ok(tools.includes(name), `${name} in ${tools}`);
        const found = await client.callTool({ name: 'ragdown_recall', arguments: { query: 'pg_restore twice' } });
        assert.ok(!found.isError && found.content[0].text.startsWith('[1] backups.md:'), JSON.stringify(found));
        const note = 'oauth-ts-dcr.md';
        const written = await client.callTool({ name: 'ragdown_write', arguments: { path: note, text: '# TypeScript\n\nWritten with OAuth.\n' } });
        assert.ok(!written.isError && written.content[0].text.startsWith('created '), JSON.stringify(written));
        assert.ok(fs.readFileSync(path.join(args.docs, 'ops', note), 'utf8').includes('Written with OAuth.'));
        fs.rmSync(path.join(args.docs, 'ops', note));
        await client.close();
        const grant = await grantOf(provider.client.client_id);
        assert.equal(grant?.path, 'ops');
        assert.equal(grant.access, 'write');
        ok(`dynamic registration (${provider.client.client_id}), consent in Chromium, finishAuth, tools listed and called, a write on disk`);

        // The SDK's refresh: auth() with a refresh token on hand trades it for new tokens.
        const before = provider.current;
        assert.equal(await auth(provider, { serverUrl: ENDPOINT }), 'AUTHORIZED');
        const after = provider.current;
        assert.notEqual(after.access_token, before.access_token, 'a new access token');
        assert.notEqual(after.refresh_token, before.refresh_token, 'the refresh token rotated');
        assert.equal(provider.authorizations.length, 1, 'the refresh asked for no authorization');
        client = await connected(provider);
        const read = await client.callTool({ name: 'ragdown_read_doc', arguments: { path: 'backups.md' } });
        assert.ok(!read.isError && read.content[0].text.includes('backups.md:1-7 of 7'), JSON.stringify(read));
        ok('auth() refreshed: new access and refresh tokens, the call works with them');

        // The owner revokes the grant in the web UI (Settings → Access, in Chromium): the token is
        // refused, and so is its refresh token, so the SDK asks for a new authorization (which is
        // not given here).
        await consent(args.url, ['--revoke', provider.name]);
        assert.equal(await grantOf(provider.client.client_id), undefined, 'the grant is still listed');
        assert.equal(await mcpStatus(after.access_token), 401, 'a revoked grant\'s token');
        provider.consentAllowed = false;
        await assert.rejects(client.callTool({ name: 'ragdown_stats', arguments: {} }), 'a call after the revocation');
        assert.ok(provider.invalidated?.includes('tokens') || provider.invalidated?.includes('all'), `invalidated: ${provider.invalidated}`);
        assert.equal(provider.authorizations.length, 2, 'the SDK asked for a new authorization');
        await client.close().catch(() => {});
        ok('the owner revoked the grant in Settings → Access: the token gets 401, the refresh fails, the SDK asks for a new authorization');
    } finally {
        await callback.close();
    }
}

async function flowCimd() {
    const callback = await callbackServer();
    const name = 'ts-client.json';
    const cimd = `${args['cimd-base']}/${name}`;
    const provider = new Provider('Interop TypeScript (CIMD)', callback, { cimd, browser: ['--only-read'] });
    fs.writeFileSync(
        path.join(args['cimd-dir'], name),
        JSON.stringify({
            client_id: cimd,
            client_name: provider.name,
            redirect_uris: [callback.uri],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none'
        })
    );
    try {
        const client = await authorize(provider);
        assert.equal(provider.client.client_id, cimd, 'the metadata document\'s URL is the client_id');
        assert.ok(fs.readFileSync(args['cimd-log'], 'utf8').split('\n').includes(`GET /${name}`), 'the server fetched the document');
        assert.equal(provider.current.scope, 'read', 'the token\'s scope as narrowed on the consent page');
        const tools = await toolNames(client);
        for (const tool of READ_TOOLS) assert.ok(tools.includes(tool), `${tool} in ${tools}`);
        for (const tool of WRITE_TOOLS) assert.ok(!tools.includes(tool), `a read grant lists ${tool}`);
        const found = await client.callTool({ name: 'ragdown_recall', arguments: { query: 'pg_restore twice' } });
        assert.ok(!found.isError, JSON.stringify(found));
        const note = path.join(args.docs, 'ops', 'oauth-ts-cimd.md');
        const refused = await client
            .callTool({ name: 'ragdown_write', arguments: { path: 'oauth-ts-cimd.md', text: '# No\n' } })
            .then(result => result.isError, () => true);
        assert.ok(refused, 'a read grant wrote');
        assert.ok(!fs.existsSync(note), 'a read grant created a file');
        assert.equal((await grantOf(cimd))?.access, 'read');
        await client.close();
        ok(`metadata document ${cimd} fetched over https, narrowed to read in Chromium: no write tool listed, a write refused`);
    } finally {
        await callback.close();
    }
}

await flowDcr();
await flowCimd();
ok('all checks passed');
