// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/** Command-line options of the launcher. */
final class LauncherConfig {

    static final String USAGE = String.join("\n",
        "usage: java -jar devcluster.jar [options]",
        "  --nodes N             number of nodes (default 1, max 9)",
        "  --http-port P         HTTP port of node 0; node i gets P+i (default 9200)",
        "  --transport-port T    transport port of node 0; node i gets T+i (default 9300)",
        "  --cluster-name NAME   cluster name (default bulkfleet-dev)",
        "  --data-dir DIR        base directory for node-<i>/ homes (default: fresh temp dir)",
        "  --keep-data           do not delete the data at exit",
        "  --ready-file FILE     written atomically once GREEN with all nodes: one http://127.0.0.1:PORT line per node",
        "  --wait-timeout SEC    max seconds for start-up + GREEN (default 180)",
        "  --max-lifetime SEC    stop by itself after SEC seconds, 0 = never (default 7200)",
        "  --setting key=value   extra node setting applied to every node (repeatable)",
        "  -h, --help            this text");

    int nodes = 1;
    int httpPort = 9200;
    int transportPort = 9300;
    String clusterName = "bulkfleet-dev";
    Path dataDir;           // null = temp dir
    boolean keepData;
    Path readyFile;         // may be null
    long waitTimeoutSec = 180;
    long maxLifetimeSec = 7200;
    final Map<String, String> extraSettings = new LinkedHashMap<>();
    boolean help;

    static LauncherConfig parse(String[] args) {
        LauncherConfig c = new LauncherConfig();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0 && !a.startsWith("--setting=")) {
                v = a.substring(eq + 1);
                a = a.substring(0, eq);
            } else if (a.startsWith("--setting=")) {
                v = a.substring("--setting=".length());
                a = "--setting";
            }
            switch (a) {
                case "-h":
                case "--help":
                    c.help = true;
                    break;
                case "--keep-data":
                    c.keepData = true;
                    break;
                case "--nodes":
                    c.nodes = intArg(a, v != null ? v : next(args, ++i, a), 1, 9);
                    break;
                case "--http-port":
                    c.httpPort = intArg(a, v != null ? v : next(args, ++i, a), 1, 65535);
                    break;
                case "--transport-port":
                    c.transportPort = intArg(a, v != null ? v : next(args, ++i, a), 1, 65535);
                    break;
                case "--cluster-name":
                    c.clusterName = v != null ? v : next(args, ++i, a);
                    break;
                case "--data-dir":
                    c.dataDir = Paths.get(v != null ? v : next(args, ++i, a)).toAbsolutePath().normalize();
                    break;
                case "--ready-file":
                    c.readyFile = Paths.get(v != null ? v : next(args, ++i, a)).toAbsolutePath().normalize();
                    break;
                case "--wait-timeout":
                    c.waitTimeoutSec = intArg(a, v != null ? v : next(args, ++i, a), 1, Integer.MAX_VALUE);
                    break;
                case "--max-lifetime":
                    c.maxLifetimeSec = intArg(a, v != null ? v : next(args, ++i, a), 0, Integer.MAX_VALUE);
                    break;
                case "--setting": {
                    String kv = v != null ? v : next(args, ++i, a);
                    int p = kv.indexOf('=');
                    if (p <= 0) {
                        throw new IllegalArgumentException("--setting expects key=value, got: " + kv);
                    }
                    c.extraSettings.put(kv.substring(0, p).trim(), kv.substring(p + 1));
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
        }
        if (c.httpPort + c.nodes - 1 > 65535 || c.transportPort + c.nodes - 1 > 65535) {
            throw new IllegalArgumentException("port range exceeds 65535");
        }
        int hLo = c.httpPort, hHi = c.httpPort + c.nodes - 1;
        int tLo = c.transportPort, tHi = c.transportPort + c.nodes - 1;
        if (hLo <= tHi && tLo <= hHi) {
            throw new IllegalArgumentException("HTTP ports " + hLo + "-" + hHi + " overlap transport ports " + tLo + "-" + tHi);
        }
        return c;
    }

    private static String next(String[] args, int i, String opt) {
        if (i >= args.length) {
            throw new IllegalArgumentException(opt + " needs a value");
        }
        return args[i];
    }

    private static int intArg(String opt, String v, int min, int max) {
        final long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(opt + " expects an integer, got: " + v);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(opt + " must be in [" + min + ", " + max + "], got: " + v);
        }
        return (int) n;
    }
}
