// Runs the Khronos glTF validator over every path given and prints one JSON object per file on its own
// line: {"file", "errors", "warnings", "infos", "messages": [the errors and warnings]}. A .gltf's
// buffers and images are read beside it. Exits 2 when a file cannot be read or validated at all.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

let failed = false;
for (const file of process.argv.slice(2)) {
  try {
    const bytes = new Uint8Array(await readFile(file));
    const report = await validator.validateBytes(bytes, {
      uri: path.basename(file),
      maxIssues: 0,
      externalResourceFunction: (uri) =>
        readFile(path.join(path.dirname(file), decodeURIComponent(uri))).then((data) => new Uint8Array(data)),
    });
    const issues = report.issues;
    console.log(JSON.stringify({
      file,
      errors: issues.numErrors,
      warnings: issues.numWarnings,
      infos: issues.numInfos,
      messages: issues.messages.filter((m) => m.severity <= 1).slice(0, 20)
        .map((m) => `${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer ?? ''}: ${m.message}`),
    }));
  } catch (error) {
    failed = true;
    console.log(JSON.stringify({ file, failure: String(error) }));
  }
}
process.exit(failed ? 2 : 0);
