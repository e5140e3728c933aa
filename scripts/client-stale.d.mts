/** Whether web/dist is missing or older than web/, domain/, projections/ or package-lock.json. */
export declare function clientIsStale(): boolean;
