import type { Channel, ResponseOf, requests } from '../../contract';
import type { z } from 'zod';

/** A handler receives the already-validated request and returns the (to-be-validated) response. */
export type Handler<C extends Channel> = (request: z.infer<(typeof requests)[C]['request']>) => Promise<ResponseOf<C>> | ResponseOf<C>;

export type HandlerMap<C extends Channel> = { [K in C]: Handler<K> };
