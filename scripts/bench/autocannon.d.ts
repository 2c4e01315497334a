/** The small part of autocannon 8's API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  }
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  export interface AutocannonResult {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    "4xx": number;
    "5xx": number;
  }
  export interface AutocannonOptions {
    url: string;
    connections?: number;
    pipelining?: number;
    amount?: number;
    duration?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: AutocannonRequest[];
  }
  /** The running benchmark: awaitable for its result, stoppable early. */
  export interface AutocannonInstance extends PromiseLike<AutocannonResult> {
    stop(): void;
  }
  export default function autocannon(options: AutocannonOptions): AutocannonInstance;
}
