import type { KeyObject } from "node:crypto";

export function loadOrCreateKeyPair(file: string): { privateKey: KeyObject; publicKey: string };
export function openSealed(privateKey: KeyObject, box: { epk: string; iv: string; tag: string; data: string }): string;
