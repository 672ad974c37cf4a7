// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esanalysis;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.core.LetterTokenizer;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.analysis.ngram.EdgeNGramTokenizer;
import org.apache.lucene.analysis.ngram.NGramTokenizer;
import org.apache.lucene.analysis.path.PathHierarchyTokenizer;
import org.apache.lucene.analysis.path.ReversePathHierarchyTokenizer;
import org.apache.lucene.analysis.pattern.PatternTokenizer;
import org.apache.lucene.analysis.pattern.SimplePatternSplitTokenizer;
import org.apache.lucene.analysis.pattern.SimplePatternTokenizer;
import org.apache.lucene.analysis.classic.ClassicTokenizer;
import org.apache.lucene.analysis.email.UAX29URLEmailTokenizer;
import org.apache.lucene.analysis.th.ThaiTokenizer;
import org.apache.lucene.analysis.util.CharTokenizer;
import org.apache.lucene.util.AttributeFactory;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.TokenizerFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;

/**
 * Elasticsearch's analysis-common tokenizers by their Elasticsearch type names and parameters
 * (elastic.co "Tokenizer reference"), each built on the Lucene tokenizer Elasticsearch uses.
 */
final class Tokenizers {
    private Tokenizers() {
    }

    private static TokenizerFactory of(String name, Supplier<Tokenizer> s) {
        return TokenizerFactory.newFactory(name, s);
    }

    static Map<String, AnalysisProvider<TokenizerFactory>> all() {
        Map<String, AnalysisProvider<TokenizerFactory>> m = new TreeMap<>();
        m.put("keyword", (is, env, name, s) -> {
            int buf = Params.intParam(s, "buffer_size", 256, 1);
            return of(name, () -> new KeywordTokenizer(buf));
        });
        m.put("whitespace", (is, env, name, s) -> {
            int max = Params.intParam(s, "max_token_length", 255, 1);
            return of(name, () -> new WhitespaceTokenizer(AttributeFactory.DEFAULT_ATTRIBUTE_FACTORY, max));
        });
        m.put("letter", (is, env, name, s) -> of(name, LetterTokenizer::new));
        m.put("classic", (is, env, name, s) -> {
            int max = Params.intParam(s, "max_token_length", 255, 1);
            return of(name, () -> {
                ClassicTokenizer t = new ClassicTokenizer();
                t.setMaxTokenLength(max);
                return t;
            });
        });
        m.put("uax_url_email", (is, env, name, s) -> {
            int max = Params.intParam(s, "max_token_length", 255, 1);
            return of(name, () -> {
                UAX29URLEmailTokenizer t = new UAX29URLEmailTokenizer();
                t.setMaxTokenLength(max);
                return t;
            });
        });
        m.put("thai", (is, env, name, s) -> of(name, ThaiTokenizer::new));
        m.put("pattern", (is, env, name, s) -> {
            Pattern p = Params.pattern(s, "pattern", "\\W+");
            int group = s.getAsInt("group", -1);
            return of(name, () -> new PatternTokenizer(p, group));
        });
        m.put("simple_pattern", (is, env, name, s) -> {
            String p = s.get("pattern", "");
            return of(name, () -> new SimplePatternTokenizer(p));
        });
        m.put("simple_pattern_split", (is, env, name, s) -> {
            String p = s.get("pattern", "");
            return of(name, () -> new SimplePatternSplitTokenizer(p));
        });
        m.put("ngram", (is, env, name, s) -> ngram(is, name, s, false));
        m.put("edge_ngram", (is, env, name, s) -> ngram(is, name, s, true));
        m.put("path_hierarchy", Tokenizers::pathHierarchy);
        m.put("PathHierarchy", Tokenizers::pathHierarchy);
        m.put("char_group", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            IntPredicate split = charGroup(Params.list(s, "tokenize_on_chars"));
            int max = Params.intParam(s, "max_token_length", 255, 1);
            return of(name, () -> new CharTokenizer(AttributeFactory.DEFAULT_ATTRIBUTE_FACTORY, max) {
                @Override
                protected boolean isTokenChar(int c) {
                    return !split.test(c);
                }
            });
        }));
        return m;
    }

    private static TokenizerFactory pathHierarchy(IndexSettings is, org.elasticsearch.env.Environment env, String name, Settings s) {
        char delim = oneChar(s, "delimiter", '/');
        char repl = oneChar(s, "replacement", delim);
        int buf = Params.intParam(s, "buffer_size", 1024, 1);
        int skip = Params.intParam(s, "skip", 0, 0);
        boolean reverse = Params.bool(s, "reverse", false);
        return of(name, () -> reverse ? new ReversePathHierarchyTokenizer(buf, delim, repl, skip)
            : new PathHierarchyTokenizer(buf, delim, repl, skip));
    }

    private static char oneChar(Settings s, String key, char def) {
        String v = s.get(key);
        if (v == null) {
            return def;
        }
        if (v.length() != 1) {
            throw new IllegalArgumentException(key + " can only be a one char value");
        }
        return v.charAt(0);
    }

    private static TokenizerFactory ngram(IndexSettings is, String name, Settings s, boolean edge) {
        int min = Params.intParam(s, "min_gram", 1, 1);
        int max = Params.intParam(s, "max_gram", 2, 1);
        if (max < min) {
            throw new IllegalArgumentException("[max_gram] (" + max + ") must be at least [min_gram] (" + min + ")");
        }
        if (!edge && is != null) {
            int allowed = is.getMaxNgramDiff();
            if (max - min > allowed) {
                throw new IllegalArgumentException("The difference between max_gram and min_gram in NGram Tokenizer must be less than"
                    + " or equal to: [" + allowed + "] but was [" + (max - min) + "]. This limit can be set by changing the ["
                    + IndexSettings.MAX_NGRAM_DIFF_SETTING.getKey() + "] index level setting.");
            }
        }
        IntPredicate tokenChar = tokenChars(Params.list(s, "token_chars"), s.get("custom_token_chars"));
        if (edge) {
            return of(name, () -> tokenChar == null ? new EdgeNGramTokenizer(min, max) : new EdgeNGramTokenizer(min, max) {
                @Override
                protected boolean isTokenChar(int c) {
                    return tokenChar.test(c);
                }
            });
        }
        return of(name, () -> tokenChar == null ? new NGramTokenizer(min, max) : new NGramTokenizer(min, max) {
            @Override
            protected boolean isTokenChar(int c) {
                return tokenChar.test(c);
            }
        });
    }

    /** token_chars: letter, digit, whitespace, punctuation, symbol, custom; null for all characters. */
    static IntPredicate tokenChars(List<String> classes, String custom) {
        if (classes == null || classes.isEmpty()) {
            return null;
        }
        IntPredicate p = c -> false;
        for (String cls : classes) {
            p = p.or(charClass(cls.toLowerCase(Locale.ROOT).trim(), custom));
        }
        return p;
    }

    private static IntPredicate charClass(String cls, String custom) {
        switch (cls) {
            case "letter":
                return Character::isLetter;
            case "digit":
                return Character::isDigit;
            case "whitespace":
                return Character::isWhitespace;
            case "punctuation":
                return c -> switch (Character.getType(c)) {
                    case Character.START_PUNCTUATION, Character.END_PUNCTUATION, Character.OTHER_PUNCTUATION,
                        Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION,
                        Character.FINAL_QUOTE_PUNCTUATION -> true;
                    default -> false;
                };
            case "symbol":
                return c -> switch (Character.getType(c)) {
                    case Character.CURRENCY_SYMBOL, Character.MATH_SYMBOL, Character.OTHER_SYMBOL, Character.MODIFIER_SYMBOL -> true;
                    default -> false;
                };
            case "custom":
                if (custom == null || custom.isEmpty()) {
                    throw new IllegalArgumentException("Token type: [custom] requires setting [custom_token_chars]");
                }
                String chars = custom;
                return c -> chars.indexOf(c) >= 0;
            default:
                throw new IllegalArgumentException("Unknown token type: '" + cls
                    + "', must be one of [symbol, private_use, paragraph_separator, start_punctuation, unassigned, enclosing_mark, "
                    + "connector_punctuation, letter_number, other_number, math_symbol, lowercase_letter, space_separator, "
                    + "surrogate, initial_quote_punctuation, decimal_digit_number, digit, other_punctuation, dash_punctuation, "
                    + "currency_symbol, non_spacing_mark, format, modifier_letter, control, uppercase_letter, other_symbol, "
                    + "end_punctuation, modifier_symbol, other_letter, line_separator, titlecase_letter, letter, punctuation, "
                    + "combining_spacing_mark, final_quote_punctuation, whitespace]");
        }
    }

    /** char_group's tokenize_on_chars: whitespace, letter, digit, punctuation, symbol, or single (escaped) characters. */
    static IntPredicate charGroup(List<String> spec) {
        if (spec == null || spec.isEmpty()) {
            throw new IllegalArgumentException("[tokenize_on_chars] cannot be empty");
        }
        IntPredicate p = c -> false;
        for (String item : spec) {
            String u = Params.unescape(item);
            if (u.codePointCount(0, u.length()) == 1) {
                int cp = u.codePointAt(0);
                p = p.or(c -> c == cp);
            } else {
                p = p.or(charClass(item.toLowerCase(Locale.ROOT), null));
            }
        }
        return p;
    }

}
