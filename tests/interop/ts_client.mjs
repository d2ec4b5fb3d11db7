// The official MCP TypeScript SDK client (@modelcontextprotocol/client, pinned in package.json)
// against ragdownd, over stdio and over streamable HTTP with a bearer token, in both protocol
// eras: the 2025-11-25 `initialize` handshake and the 2026-07-28 `server/discover` one. Lists and
// reads resources (a Markdown document as text, an image as a blob), reads a section through the
// resource template, completes a path, checks each tool's `structuredContent` against its
// `outputSchema` with ajv, and hears of a file edited on disk: through `resources/subscribe`
// (2025-11-25, stdio only: the HTTP endpoints keep no sessions) and `subscriptions/listen`
// (2026-07-28, stdio and HTTP).
//
//   node ts_client.mjs --bin ragdownd --docs DIR --data DIR --url http://.../mcp/ops --token T

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Ajv2020 } from 'ajv/dist/2020.js';

const V2025 = '2025-11-25';
const V2026 = '2026-07-28';
const STRUCTURED = ['ragdown_backlinks', 'ragdown_list', 'ragdown_recall', 'ragdown_stats'];
const BACKUPS = 'ragdown:///ops/backups.md';
const IMAGE = 'ragdown:///ops/img/ts-chart.png';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x74, 0x73]);
/** Long enough for a sync on a slow, shared machine; a hang detector, not a speed test. */
const WITHIN_MS = 60_000;

const { values: args } = parseArgs({
    options: {
        bin: { type: 'string' },
        docs: { type: 'string' },
        data: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' }
    }
});
for (const name of ['bin', 'docs', 'data', 'url', 'token']) {
    assert.ok(args[name], `--${name} is required`);
}

function ok(message) {
    process.stderr.write(`ok: typescript sdk ${message}\n`);
}

async function until(what, check) {
    const deadline = Date.now() + WITHIN_MS;
    while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise(resolve => setTimeout(resolve, 50));
    }
}

/** A client on `transport` in `era`: the default handshake, or 2026-07-28 pinned. */
async function connect(transport, era) {
    const options = era === V2026 ? { versionNegotiation: { mode: { pin: V2026 } } } : {};
    const client = new Client({ name: 'ragdown-interop-ts', version: '0' }, options);
    await client.connect(transport);
    return client;
}

function stdio(env) {
    return new StdioClientTransport({
        command: args.bin,
        args: ['stdio'],
        env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            RAGDOWN_DOCS_DIR: args.docs,
            RAGDOWN_DATA_DIR: args.data,
            RAGDOWN_EMBEDDER: 'hash',
            ...env
        },
        stderr: 'inherit'
    });
}

function http() {
    return new StreamableHTTPClientTransport(new URL(args.url), {
        requestInit: { headers: { Authorization: `Bearer ${args.token}` } }
    });
}

async function checkTools(client, where, docPath) {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map(tool => [tool.name, tool]));
    const withSchema = tools.filter(tool => tool.outputSchema).map(tool => tool.name).sort();
    assert.deepEqual(withSchema, STRUCTURED, `${where}: tools with an outputSchema`);
    // The SDK validates structuredContent itself once it has listed the tools; checked here again.
    const ajv = new Ajv2020({ strict: false });
    const calls = {
        ragdown_recall: { query: 'pg_restore twice' },
        ragdown_list: {},
        ragdown_backlinks: { path: docPath },
        ragdown_stats: {}
    };
    for (const [name, toolArgs] of Object.entries(calls)) {
        const result = await client.callTool({ name, arguments: toolArgs });
        assert.ok(!result.isError && result.structuredContent, `${where} ${name}: ${JSON.stringify(result)}`);
        const validate = ajv.compile(byName[name].outputSchema);
        assert.ok(validate(result.structuredContent), `${where} ${name}: ${ajv.errorsText(validate.errors)}`);
        assert.equal(result.content[0].type, 'text', `${where} ${name}`);
    }
    ok(`structuredContent matches every outputSchema over ${where}`);
}

/** `rel` is the endpoint's prefix of `ops/...` paths: `ops/` over stdio, empty on /mcp/ops. */
async function checkResources(client, where, rel) {
    const { resources } = await client.listResources();
    const byUri = Object.fromEntries(resources.map(r => [r.uri, r]));
    assert.equal(byUri[BACKUPS]?.mimeType, 'text/markdown', `${where}: ${JSON.stringify(resources)}`);
    assert.equal(byUri[BACKUPS].name, `${rel}backups.md`, where);
    assert.equal(byUri[IMAGE]?.mimeType, 'image/png', where);
    const onDisk = fs.readFileSync(path.join(args.docs, 'ops/backups.md'), 'utf8');
    const text = (await client.readResource({ uri: BACKUPS })).contents[0];
    assert.equal(text.text, onDisk, `${where}: the document as on disk`);
    const blob = (await client.readResource({ uri: IMAGE })).contents[0];
    assert.equal(blob.mimeType, 'image/png', where);
    assert.deepEqual(Buffer.from(blob.blob, 'base64'), PNG, `${where}: the image's bytes`);
    const { resourceTemplates } = await client.listResourceTemplates();
    const prefix = `ragdown:///${rel ? '' : 'ops/'}`;
    assert.deepEqual(
        resourceTemplates.map(t => t.uriTemplate),
        [`${prefix}{+path}`, `${prefix}{+path}#{heading}`],
        where
    );
    const sectionUri = resourceTemplates[1].uriTemplate.replace('{+path}', `${rel}backups.md`).replace('{heading}', 'Restore');
    const section = (await client.readResource({ uri: sectionUri })).contents[0];
    assert.equal(section.text, onDisk.slice(onDisk.indexOf('## Restore')), `${where}: ${sectionUri}`);
    const { completion } = await client.complete({
        ref: { type: 'ref/resource', uri: resourceTemplates[0].uriTemplate },
        argument: { name: 'path', value: `${rel}back` }
    });
    assert.deepEqual(completion.values, [`${rel}backups.md`], where);
    ok(`resources, a template-built section and completion over ${where}`);
}

/** Edits `name` on disk, by no tool; `sync` makes the index see it (the watcher, or a reindex). */
async function editOnDisk(name, text, sync) {
    fs.writeFileSync(path.join(args.docs, 'ops', name), text);
    await sync();
}

/** Collects the server's resource notifications on `client`. */
function collect(client) {
    const notes = [];
    client.setNotificationHandler('notifications/resources/updated', note => notes.push(note));
    client.setNotificationHandler('notifications/resources/list_changed', note => notes.push(note));
    return notes;
}

const updatedFor = (notes, uri) => notes.some(n => n.method === 'notifications/resources/updated' && n.params.uri === uri);
const listChanged = notes => notes.some(n => n.method === 'notifications/resources/list_changed');

/** 2025-11-25: resources/subscribe, then unsolicited notifications (a session's stream: stdio). */
async function checkSubscribe(client, where, sync) {
    const notes = collect(client);
    const uri = 'ragdown:///ops/ts-subscribed.md';
    await client.subscribeResource({ uri });
    await editOnDisk('ts-subscribed.md', '# Subscribed\n\nWritten on disk, not by a tool.\n', sync);
    await until(`resources/updated and list_changed for ${uri} over ${where}`, () => updatedFor(notes, uri) && listChanged(notes));
    await client.unsubscribeResource({ uri });
    ok(`resources/subscribe hears an edit on disk over ${where}`);
}

/** 2026-07-28: one subscriptions/listen stream carries what its filter asked for. */
async function checkListen(client, where, name, sync) {
    const notes = collect(client);
    const uri = `ragdown:///ops/${name}`;
    const subscription = await client.listen({
        resourcesListChanged: true,
        resourceSubscriptions: [uri, 'ragdown:///ops/../../etc/passwd']
    });
    assert.deepEqual(
        subscription.honoredFilter,
        { resourcesListChanged: true, resourceSubscriptions: [uri] },
        `${where}: a hostile URI is not acknowledged`
    );
    await editOnDisk(name, '# Listened\n\nWritten on disk, not by a tool.\n', sync);
    await until(`resources/updated and list_changed for ${uri} over ${where}`, () => updatedFor(notes, uri) && listChanged(notes));
    await subscription.close();
    assert.equal(await subscription.closed, 'local', where);
    ok(`subscriptions/listen hears an edit on disk over ${where}`);
}

const cleanups = [];
function cleanup() {
    for (const file of cleanups) fs.rmSync(file, { force: true });
}

async function main() {
    fs.mkdirSync(path.join(args.docs, 'ops/img'), { recursive: true });
    fs.writeFileSync(path.join(args.docs, 'ops/img/ts-chart.png'), PNG);
    for (const name of ['img/ts-chart.png', 'ts-subscribed.md', 'ts-listen-stdio.md', 'ts-listen-http.md']) {
        cleanups.push(path.join(args.docs, 'ops', name));
    }

    // stdio, with the watcher on: an edit on disk reaches subscribers with no tool involved.
    const watched = { RAGDOWN_WATCH: 'true' };
    const noSync = async () => {};
    for (const era of [V2025, V2026]) {
        const client = await connect(stdio(watched), era);
        const where = `stdio (${era})`;
        assert.equal(client.getProtocolEra(), era === V2026 ? 'modern' : 'legacy', where);
        const resources = client.getServerCapabilities().resources;
        assert.ok(resources.subscribe && resources.listChanged, `${where}: ${JSON.stringify(resources)}`);
        await checkTools(client, where, 'ops/backups.md');
        await checkResources(client, where, 'ops/');
        if (era === V2025) await checkSubscribe(client, where, noSync);
        else await checkListen(client, where, 'ts-listen-stdio.md', noSync);
        await client.close();
    }

    // Streamable HTTP (stateless, no watcher in run.sh's server: ragdown_reindex syncs).
    for (const era of [V2025, V2026]) {
        const client = await connect(http(), era);
        const where = `streamable HTTP (${era})`;
        const resources = client.getServerCapabilities().resources;
        const reindex = async () => {
            const result = await client.callTool({ name: 'ragdown_reindex', arguments: {} });
            assert.ok(!result.isError, `${where}: ${JSON.stringify(result)}`);
        };
        await checkTools(client, where, 'backups.md');
        await checkResources(client, where, '');
        if (era === V2025) {
            // No session, so no stream to notify on: neither claimed, and subscribing is refused.
            assert.ok(!resources.subscribe && !resources.listChanged, `${where}: ${JSON.stringify(resources)}`);
            await assert.rejects(client.subscribeResource({ uri: BACKUPS }), where);
        } else {
            assert.ok(resources.subscribe && resources.listChanged, `${where}: ${JSON.stringify(resources)}`);
            await checkListen(client, where, 'ts-listen-http.md', reindex);
        }
        await client.close();
    }
}

try {
    await main();
} finally {
    cleanup();
}
ok('interop checks passed');
