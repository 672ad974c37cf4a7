// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esanalysis;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.elasticsearch.common.settings.Settings;

/**
 * Reading the parameters Elasticsearch's analysis components take, with Elasticsearch's names
 * and defaults (as documented on elastic.co, "Text analysis" reference: word lists as JSON
 * arrays, {@code _lang_} stop word sets, pipe-separated regex flags).
 */
final class Params {
    private Params() {
    }

    /** A required string parameter; throws IllegalArgumentException naming it and the component. */
    static String required(Settings s, String key, String component) {
        String v = s.get(key);
        if (v == null) {
            throw new IllegalArgumentException("[" + key + "] is required for [" + component + "]");
        }
        return v;
    }

    /** An int parameter, or the default; throws IllegalArgumentException if below min. */
    static int intParam(Settings s, String key, int def, int min) {
        int v = s.getAsInt(key, def);
        if (v < min) {
            throw new IllegalArgumentException("[" + key + "] must be at least " + min + ", got " + v);
        }
        return v;
    }

    static boolean bool(Settings s, String key, boolean def) {
        return s.getAsBoolean(key, def);
    }

    /** A list parameter (JSON array or one comma-separated string), or null when absent. */
    static List<String> list(Settings s, String key) {
        if (s.get(key) == null && s.getAsList(key, null) == null) {
            return null;
        }
        return s.getAsList(key, List.of());
    }

    /**
     * A word set: absent gives {@code def}; {@code _none_} the empty set; {@code _lang_} the
     * Lucene analyzer's default stop words for that language (e.g. {@code _english_}); else the
     * listed words. Case folded when {@code ignore_case} is true.
     */
    static CharArraySet words(Settings s, String key, CharArraySet def, boolean ignoreCase) {
        List<String> l = list(s, key);
        if (l == null) {
            return def;
        }
        if (l.size() == 1 && l.get(0).startsWith("_") && l.get(0).endsWith("_")) {
            return namedStopSet(l.get(0));
        }
        return new CharArraySet(l, ignoreCase);
    }

    /** {@code _none_}, {@code _english_}, {@code _french_}, ... as the Lucene analyzers define them. */
    static CharArraySet namedStopSet(String name) {
        String lang = name.substring(1, name.length() - 1).toLowerCase(Locale.ROOT);
        if (lang.equals("none")) {
            return CharArraySet.EMPTY_SET;
        }
        if (lang.equals("english")) {
            return EnglishAnalyzer.ENGLISH_STOP_WORDS_SET;
        }
        Class<?> c = Analyzers.languageClass(lang);
        if (c != null) {
            try {
                Method m = c.getMethod("getDefaultStopSet");
                return (CharArraySet) m.invoke(null);
            } catch (ReflectiveOperationException e) {
                // fall through to the error
            }
        }
        throw new IllegalArgumentException("unknown stop word set [" + name + "]");
    }

    /** Java regex flags as Elasticsearch writes them: "CASE_INSENSITIVE|COMMENTS". */
    static int regexFlags(String flags) {
        if (flags == null || flags.isBlank()) {
            return 0;
        }
        int f = 0;
        for (String part : flags.split("\\|")) {
            String p = part.trim().toUpperCase(Locale.ROOT);
            if (p.isEmpty()) {
                continue;
            }
            try {
                f |= Pattern.class.getField(p).getInt(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("unknown regex flag [" + p + "] in [" + flags + "]");
            }
        }
        return f;
    }

    static Pattern pattern(Settings s, String key, String def) {
        String p = def == null ? required(s, key, key) : s.get(key, def);
        return Pattern.compile(p, regexFlags(s.get("flags")));
    }

    /** Mapping rules "a => b" (mapping char filter, type_table): the two sides, trimmed. */
    static List<String[]> rules(List<String> lines, String key) {
        List<String[]> out = new ArrayList<>();
        for (String line : lines) {
            int i = line.indexOf("=>");
            if (i < 0) {
                throw new IllegalArgumentException("invalid rule [" + line + "] in [" + key + "]: expected 'a => b'");
            }
            out.add(new String[] {unescape(line.substring(0, i).trim()), unescape(line.substring(i + 2).trim())});
        }
        return out;
    }

    /** Backslash escapes in word lists and rules: \\n \\t \\r \\b \\f \\uXXXX, else the character. */
    static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                b.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case 'n' -> b.append('\n');
                case 't' -> b.append('\t');
                case 'r' -> b.append('\r');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    if (i + 4 >= s.length()) {
                        throw new IllegalArgumentException("invalid escape in [" + s + "]");
                    }
                    b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> b.append(n);
            }
        }
        return b.toString();
    }
}
