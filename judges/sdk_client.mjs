// The TypeScript SDK's client against the hub, as the hosts built on it connect: list the
// tools, save a memory, find it. One target per argument, a JSON object:
//   {"label": "...", "stdio": {"command": "...", "env": {...}}}            (StdioClientTransport)
//   {"label": "...", "url": "http://.../mcp", "token": "alt_..."}          (StreamableHTTPClientTransport)
// Prints "ok <label>: ..." or "FAIL <label>: ..." per target; exits 1 when any failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const TIMEOUT_MS = 20000;

function transportFor(target) {
  if (target.stdio) {
    return new StdioClientTransport({ ...target.stdio, stderr: "pipe" });
  }
  const headers = target.token ? { Authorization: `Bearer ${target.token}` } : {};
  return new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers } });
}

function text(result) {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.content.map((block) => block.text ?? "").join("\n");
}

async function exercise(target) {
  const client = new Client({ name: "aletheia-judges", version: "1.0.0" });
  await client.connect(transportFor(target));
  try {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const needed of ["save_memory", "search"]) {
      if (!names.includes(needed)) throw new Error(`tools/list lacks ${needed}: ${names}`);
    }
    const word = `judge${target.label.replace(/[^a-z]/g, "")}${Date.now().toString(36)}`;
    const saved = text(
      await client.callTool({
        name: "save_memory",
        arguments: { text: `Deploys of ${word} are blue-green`, type: "decision" },
      }),
    );
    const id = /#(\d+)/.exec(saved)?.[1];
    if (!id) throw new Error(`save_memory answered ${JSON.stringify(saved)}`);
    const found = text(await client.callTool({ name: "search", arguments: { query: word } }));
    if (!found.includes(`#${id} `)) throw new Error(`search for ${word} missed #${id}: ${found}`);
    return `listed ${tools.length} tools, saved #${id}, found it`;
  } finally {
    await client.close();
  }
}

function withTimeout(promise, label) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let failed = false;
for (const raw of process.argv.slice(2)) {
  const target = JSON.parse(raw);
  try {
    console.log(`ok ${target.label}: ${await withTimeout(exercise(target), target.label)}`);
  } catch (error) {
    failed = true;
    console.log(`FAIL ${target.label}: ${error?.message ?? error}`);
  }
}
process.exit(failed ? 1 : 0);
