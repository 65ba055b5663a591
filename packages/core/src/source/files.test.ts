import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RawMessage, Source, SourceCursor } from '../interfaces.js';
import { emlDirSource } from './eml-dir.js';
import { maildirSource } from './maildir.js';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'chs-files-'));
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), body);
  }
  return root;
}

async function collect(source: Source<RawMessage>, from?: SourceCursor): Promise<RawMessage[]> {
  const out: RawMessage[] = [];
  for await (const m of source.items(from)) out.push(m);
  return out;
}

const rels = (msgs: RawMessage[]) => msgs.map((m) => (m.cursor as { after: string }).after);

describe('emlDirSource', () => {
  const root = tree({
    'b.eml': 'Subject: b\n\nb',
    'a/2.': 'Subject: a2\n\n',
    'a/10': 'Subject: a10\n\n',
    'a/x:2,S': 'Subject: colon\n\n',
    'Z.txt': 'Subject: Z\n\n',
    '.hidden': 'x',
    '.git/config': 'x',
    'c/d/e.msg': 'Subject: deep\r\rbare cr\r',
  });

  it('yields every regular file recursively, sorted by relative path, dotfiles skipped', async () => {
    const source = emlDirSource(root);
    expect(source.kind).toBe('eml');
    expect(source.key).toBe(`eml:${root}`);
    const msgs = await collect(source);
    expect(rels(msgs)).toEqual(['Z.txt', 'a/10', 'a/2.', 'a/x:2,S', 'b.eml', 'c/d/e.msg']);
    expect(msgs[0]?.location).toBe(join(root, 'Z.txt'));
    expect(await source.total?.()).toBe(6);
  });

  it('normalises bare CR line ends', async () => {
    const msgs = await collect(emlDirSource(root));
    expect(msgs[5]?.raw.toString()).toBe('Subject: deep\n\nbare cr\n');
    expect(msgs.every((m) => m.lineEndingsChecked === true)).toBe(true);
  });

  it('resumes after the cursor with exactly the remaining files', async () => {
    const all = await collect(emlDirSource(root));
    for (let i = 0; i < all.length; i++) {
      const rest = await collect(emlDirSource(root), all[i]?.cursor);
      expect(rels(rest)).toEqual(rels(all).slice(i + 1));
    }
  });

  it('fails with SOURCE_UNREADABLE on a missing folder', async () => {
    await expect(collect(emlDirSource(join(root, 'missing')))).rejects.toMatchObject({ code: 'SOURCE_UNREADABLE' });
  });
});

describe('maildirSource', () => {
  const root = tree({
    'cur/1000.M1.host:2,S': 'Subject: 1\n\n',
    'new/0999.M2.host': 'Subject: 2\n\n',
    'tmp/1001.M3.host': 'Subject: in delivery\n\n',
    '.Work/cur/1002.M4.host:2,': 'Subject: 4\n\n',
    '.Work/.Deep/new/1003.M5.host': 'Subject: 5\n\n',
    '.Work/maildirfolder': '',
    'dovecot-uidlist': 'x',
    'cur/.hidden': 'x',
  });

  it('reads cur/ and new/ of the folder and nested Maildir++ folders, skipping tmp/', async () => {
    const source = maildirSource(root);
    expect(source.kind).toBe('maildir');
    const msgs = await collect(source);
    expect(rels(msgs)).toEqual(['.Work/.Deep/new/1003.M5.host', '.Work/cur/1002.M4.host:2,', 'cur/1000.M1.host:2,S', 'new/0999.M2.host']);
    expect(await source.total?.()).toBe(4);
  });

  it('resumes after the cursor', async () => {
    const all = await collect(maildirSource(root));
    const rest = await collect(maildirSource(root), all[1]?.cursor);
    expect(rels(rest)).toEqual(['cur/1000.M1.host:2,S', 'new/0999.M2.host']);
  });
});
