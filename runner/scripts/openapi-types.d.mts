/** Types of openapi-types.mjs (for the test that checks the generated file is current). */
export declare const TYPES_FILE: string;
export declare function renderOpenApiTypes(document: unknown): Promise<string>;
