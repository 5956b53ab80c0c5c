// The types of whichBuild.mjs (plain JavaScript, run by bin.mjs before any TypeScript loader), for the build script and the tests.

/** The CLI's bundle and its manifest, relative to the project root. */
export declare const CLI_BUNDLE: string
export declare const CLI_MANIFEST: string

/** A file's size and modification time (ms), as the manifest records them. */
export interface FileStamp {
  readonly size: number
  readonly mtimeMs: number
}

export declare const fileStamp: (file: string) => FileStamp

/** Writes the manifest of a CLI build: each input's path (relative to projectRoot) with its stamp taken before the build read it. */
export declare const writeCliManifest: (projectRoot: string, inputs: Readonly<Record<string, FileStamp>>) => void

/** The CLI's bundle (absolute path) when the build is current, else undefined (the sources run). */
export declare const currentCliBuild: (projectRoot: string) => string | undefined
