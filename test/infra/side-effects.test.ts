import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/bundles.ts';

/**
 * package.json declares the project's modules free of side effects apart from those it lists, so that
 * esbuild drops a module none of whose exports a function uses (and the packages only it imports).
 * A module that acts when imported — a top-level statement other than a declaration — must be listed,
 * or the functions' bundles would silently lose that act; the console's build (Vite) reads the same
 * list, so its modules are held to it too.
 */
const DECLARATIONS = new Set([
  ts.SyntaxKind.ImportDeclaration,
  ts.SyntaxKind.ImportEqualsDeclaration,
  ts.SyntaxKind.ExportDeclaration,
  ts.SyntaxKind.ExportAssignment,
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.InterfaceDeclaration,
  ts.SyntaxKind.TypeAliasDeclaration,
  ts.SyntaxKind.EnumDeclaration,
  ts.SyntaxKind.ModuleDeclaration,
  ts.SyntaxKind.VariableStatement,
  ts.SyntaxKind.EmptyStatement,
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The modules of the function bundles' and the console's code that run a statement when imported. */
function modulesWithSideEffects(): string[] {
  return ['shared', 'functions', 'console/src']
    .flatMap((dir) => sourceFiles(join(PROJECT_ROOT, dir)))
    .filter((file) => {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
      return source.statements.some((statement) => !DECLARATIONS.has(statement.kind));
    })
    .map((file) => `./${relative(PROJECT_ROOT, file)}`)
    .sort();
}

describe('side effects the bundler may not drop', () => {
  it("package.json's sideEffects lists exactly the modules that act when imported", () => {
    const declared = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { sideEffects: string[] }).sideEffects;
    expect(modulesWithSideEffects()).toEqual([...declared].sort());
  });
});
