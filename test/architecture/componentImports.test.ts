/**
 * Components never import each other in both directions (issue 19, item 4): the graph of imports
 * between the folders of src/ (static, dynamic and `import type`, read by the TypeScript parser) has
 * no two-way edge. The composition root (files directly in src/) is outside the graph.
 * Actors only look down (issue 33, item 2): actors/ imports the components, and no component imports
 * actors/; only the composition root, which assembles the actors' layers, names them.
 */
import { describe, expect, it } from "vitest"
import { ACTORS, componentOf, importedFiles, SRC, sourceFiles } from "./sourceScan.js"

/** component -> imported component -> the importing files with what they import. */
const graph = new Map<string, Map<string, Array<string>>>()
for (const file of sourceFiles(SRC)) {
  const from = componentOf(file)
  if (from === undefined) continue
  for (const target of importedFiles(file)) {
    const to = componentOf(target)
    if (to === undefined || to === from) continue
    const edges = graph.get(from) ?? new Map<string, Array<string>>()
    graph.set(from, edges)
    edges.set(to, [...(edges.get(to) ?? []), `${file} -> ${target}`])
  }
}
const importers = (from: string, to: string) => graph.get(from)?.get(to) ?? []
const pairKey = (a: string, b: string) => [a, b].sort().join(" <-> ")
const isActor = (file: string) => file.startsWith("actors/")
/** Imports of actors/ from a component of src/, as "file -> imported actor file". */
const upward = sourceFiles(SRC)
  .filter((file) => componentOf(file) !== undefined)
  .flatMap((file) => importedFiles(file).filter(isActor).map((target) => `${file} -> ${target}`))
/** The components actors/ imports. */
const actorsImport = new Set(sourceFiles(ACTORS).flatMap((file) => importedFiles(file).map(componentOf)))
const twoWay = [...graph].flatMap(([from, edges]) =>
  [...edges.keys()].filter((to) => from < to && importers(to, from).length > 0).map((to) => pairKey(from, to))
)

describe("imports between components", () => {
  it("sees the imports (the graph holds edges the code is known to have)", () => {
    expect(importers("pipeline", "chain").length).toBeGreaterThan(0)
    expect(importers("agents", "pipeline").length).toBeGreaterThan(0)
  })

  it("has no two components that import each other", () => {
    const detail = twoWay.map((pair) => {
      const [a, b] = pair.split(" <-> ") as [string, string]
      return { pair, [`${a} imports`]: importers(a, b), [`${b} imports`]: importers(b, a) }
    })
    expect(detail).toEqual([])
  })

  it("sees the actors' imports of the components", () => {
    expect(actorsImport).toContain("pipeline")
    expect(actorsImport).toContain("agents")
  })

  it("has no component that imports actors/ (a service the components call lives in its component; supervision is src/supervision/)", () => {
    expect(upward, "actors/ only looks down: move what these files need out of actors/ into its component").toEqual([])
  })
})
