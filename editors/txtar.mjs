// writeTxtar writes the files of a txtar archive (testdata/workspaces/*.txtar)
// under dir: the fixture workspaces of the editor tests that run in Node.
import fs from 'node:fs';
import path from 'node:path';

export function writeTxtar(archive, dir) {
  const text = fs.readFileSync(archive, 'utf8');
  const marks = [...text.matchAll(/^-- (.+) --$/gm)];
  marks.forEach((m, i) => {
    const start = m.index + m[0].length + 1;
    const end = i + 1 < marks.length ? marks[i + 1].index : text.length;
    const file = path.join(dir, m[1]);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text.slice(start, end));
  });
}
