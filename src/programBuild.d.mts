// The types of programBuild.mjs (plain JavaScript, run by the bins before any TypeScript loader), for the build script and the tests.

/** The programs built with a manifest of their inputs. */
export type StampedProgram = "cli" | "mcp"

/** A program's bundle and its manifest, relative to the project root. */
export declare const buildFiles: (name: StampedProgram) => { readonly bundle: string; readonly manifest: string }

/** A file's size and modification time (ms), as the manifest records them. */
export interface FileStamp {
  readonly size: number
  readonly mtimeMs: number
}

export declare const fileStamp: (file: string) => FileStamp

/** Writes the manifest of a program's build: each input's path (relative to projectRoot) with its stamp taken before the build read it. */
export declare const writeBuildManifest: (projectRoot: string, name: StampedProgram, inputs: Readonly<Record<string, FileStamp>>) => void

/** The program's bundle (absolute path) when its build is current, else undefined (the sources run). */
export declare const currentBuild: (projectRoot: string, name: StampedProgram) => string | undefined

/** Runs the program from its build when current, else its source (a file URL) through tsx. */
export declare const runProgram: (projectRootUrl: URL, name: StampedProgram, sourceUrl: string) => Promise<unknown>
