/** Types of scripts/node-runtime.mjs (plain JavaScript, so that an older Node can run it before anything else). */
export declare const MINIMUM_NODE: string;
export declare function isSupportedNode(version: string): boolean;
export declare function serverNode(root: string): string;
