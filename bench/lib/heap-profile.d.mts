export interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: HeapProfileNode[];
}
export interface BytesByFunction {
  name: string;
  bytesPerRequest: number;
}
export function summariseHeapProfile(profile: { head: HeapProfileNode }, requests: number, top?: number): { totalBytes: number; bytesPerRequest: number; self: BytesByFunction[]; inclusive: BytesByFunction[] };
