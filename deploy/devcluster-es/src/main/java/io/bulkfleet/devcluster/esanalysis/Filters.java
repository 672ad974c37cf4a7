// SPDX-License-Identifier: MIT
package io.bulkfleet.devcluster.esanalysis;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.ar.ArabicNormalizationFilter;
import org.apache.lucene.analysis.ar.ArabicStemFilter;
import org.apache.lucene.analysis.bn.BengaliNormalizationFilter;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.cjk.CJKWidthFilter;
import org.apache.lucene.analysis.ckb.SoraniNormalizationFilter;
import org.apache.lucene.analysis.classic.ClassicFilter;
import org.apache.lucene.analysis.commongrams.CommonGramsFilter;
import org.apache.lucene.analysis.commongrams.CommonGramsQueryFilter;
import org.apache.lucene.analysis.core.DecimalDigitFilter;
import org.apache.lucene.analysis.core.FlattenGraphFilter;
import org.apache.lucene.analysis.core.TypeTokenFilter;
import org.apache.lucene.analysis.core.UpperCaseFilter;
import org.apache.lucene.analysis.de.GermanLightStemFilter;
import org.apache.lucene.analysis.de.GermanMinimalStemFilter;
import org.apache.lucene.analysis.de.GermanNormalizationFilter;
import org.apache.lucene.analysis.el.GreekLowerCaseFilter;
import org.apache.lucene.analysis.en.EnglishMinimalStemFilter;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.KStemFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.es.SpanishLightStemFilter;
import org.apache.lucene.analysis.fa.PersianNormalizationFilter;
import org.apache.lucene.analysis.fr.FrenchLightStemFilter;
import org.apache.lucene.analysis.fr.FrenchMinimalStemFilter;
import org.apache.lucene.analysis.ga.IrishLowerCaseFilter;
import org.apache.lucene.analysis.hi.HindiNormalizationFilter;
import org.apache.lucene.analysis.in.IndicNormalizationFilter;
import org.apache.lucene.analysis.it.ItalianLightStemFilter;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.FingerprintFilter;
import org.apache.lucene.analysis.miscellaneous.KeepWordFilter;
import org.apache.lucene.analysis.miscellaneous.LengthFilter;
import org.apache.lucene.analysis.miscellaneous.LimitTokenCountFilter;
import org.apache.lucene.analysis.miscellaneous.PatternKeywordMarkerFilter;
import org.apache.lucene.analysis.miscellaneous.RemoveDuplicatesTokenFilter;
import org.apache.lucene.analysis.miscellaneous.ScandinavianFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.ScandinavianNormalizationFilter;
import org.apache.lucene.analysis.miscellaneous.SetKeywordMarkerFilter;
import org.apache.lucene.analysis.miscellaneous.TrimFilter;
import org.apache.lucene.analysis.miscellaneous.TruncateTokenFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterGraphFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterIterator;
import org.apache.lucene.analysis.ngram.EdgeNGramTokenFilter;
import org.apache.lucene.analysis.ngram.NGramTokenFilter;
import org.apache.lucene.analysis.pattern.PatternCaptureGroupTokenFilter;
import org.apache.lucene.analysis.pattern.PatternReplaceFilter;
import org.apache.lucene.analysis.pt.PortugueseLightStemFilter;
import org.apache.lucene.analysis.reverse.ReverseStringFilter;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.sr.SerbianNormalizationFilter;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tr.ApostropheFilter;
import org.apache.lucene.analysis.tr.TurkishLowerCaseFilter;
import org.apache.lucene.analysis.util.ElisionFilter;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.NormalizingTokenFilterFactory;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;

/**
 * Elasticsearch's analysis-common token filters by their Elasticsearch type names and parameters
 * (elastic.co "Token filter reference"), each built on the Lucene filter Elasticsearch uses.
 * Those Elasticsearch allows in normalizers (lowercase, uppercase, asciifolding, trim, elision,
 * the *_normalization ones, ...) are normalizing here too.
 */
final class Filters {
    private Filters() {
    }

    static TokenFilterFactory of(String name, UnaryOperator<TokenStream> op) {
        return new TokenFilterFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public TokenStream create(TokenStream ts) {
                return op.apply(ts);
            }
        };
    }

    static TokenFilterFactory normalizing(String name, UnaryOperator<TokenStream> op) {
        return new NormalizingTokenFilterFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public TokenStream create(TokenStream ts) {
                return op.apply(ts);
            }
        };
    }

    /** A filter without parameters, allowed in normalizers when {@code norm}. */
    private static void plain(Map<String, AnalysisProvider<TokenFilterFactory>> m, String type, boolean norm,
        UnaryOperator<TokenStream> op) {
        m.put(type, (is, env, name, s) -> norm ? normalizing(name, op) : of(name, op));
    }

    static Map<String, AnalysisProvider<TokenFilterFactory>> all() {
        Map<String, AnalysisProvider<TokenFilterFactory>> m = new TreeMap<>();
        m.put("lowercase", (is, env, name, s) -> {
            String lang = s.get("language");
            if (lang == null) {
                return normalizing(name, LowerCaseFilter::new);
            }
            return switch (lang.toLowerCase(Locale.ROOT)) {
                case "greek" -> normalizing(name, GreekLowerCaseFilter::new);
                case "irish" -> normalizing(name, IrishLowerCaseFilter::new);
                case "turkish" -> normalizing(name, TurkishLowerCaseFilter::new);
                default -> throw new IllegalArgumentException("language [" + lang + "] not support for lower case");
            };
        });
        plain(m, "uppercase", true, UpperCaseFilter::new);
        m.put("asciifolding", (is, env, name, s) -> {
            boolean keep = Params.bool(s, "preserve_original", false);
            return new NormalizingTokenFilterFactory() {
                @Override
                public String name() {
                    return name;
                }

                @Override
                public TokenStream create(TokenStream ts) {
                    return new ASCIIFoldingFilter(ts, keep);
                }

                @Override
                public TokenStream normalize(TokenStream ts) {
                    return new ASCIIFoldingFilter(ts, false);
                }
            };
        });
        plain(m, "trim", true, TrimFilter::new);
        plain(m, "apostrophe", false, ApostropheFilter::new);
        plain(m, "classic", false, ClassicFilter::new);
        plain(m, "decimal_digit", true, DecimalDigitFilter::new);
        plain(m, "cjk_width", true, CJKWidthFilter::new);
        plain(m, "flatten_graph", false, FlattenGraphFilter::new);
        plain(m, "remove_duplicates", false, RemoveDuplicatesTokenFilter::new);
        plain(m, "reverse", false, ReverseStringFilter::new);
        plain(m, "porter_stem", false, PorterStemFilter::new);
        plain(m, "kstem", false, KStemFilter::new);
        plain(m, "arabic_normalization", true, ArabicNormalizationFilter::new);
        plain(m, "arabic_stem", false, ArabicStemFilter::new);
        plain(m, "bengali_normalization", true, BengaliNormalizationFilter::new);
        plain(m, "german_normalization", true, GermanNormalizationFilter::new);
        plain(m, "hindi_normalization", true, HindiNormalizationFilter::new);
        plain(m, "indic_normalization", true, IndicNormalizationFilter::new);
        plain(m, "persian_normalization", true, PersianNormalizationFilter::new);
        plain(m, "scandinavian_folding", true, ScandinavianFoldingFilter::new);
        plain(m, "scandinavian_normalization", true, ScandinavianNormalizationFilter::new);
        plain(m, "serbian_normalization", true, SerbianNormalizationFilter::new);
        plain(m, "sorani_normalization", true, SoraniNormalizationFilter::new);
        m.put("cjk_bigram", (is, env, name, s) -> {
            int flags = CJKBigramFilter.HAN | CJKBigramFilter.HIRAGANA | CJKBigramFilter.KATAKANA | CJKBigramFilter.HANGUL;
            List<String> ignored = Params.list(s, "ignored_scripts");
            if (ignored != null) {
                for (String script : ignored) {
                    switch (script.toLowerCase(Locale.ROOT)) {
                        case "han" -> flags &= ~CJKBigramFilter.HAN;
                        case "hiragana" -> flags &= ~CJKBigramFilter.HIRAGANA;
                        case "katakana" -> flags &= ~CJKBigramFilter.KATAKANA;
                        case "hangul" -> flags &= ~CJKBigramFilter.HANGUL;
                        default -> throw new IllegalArgumentException("unknown script [" + script + "] in [ignored_scripts]");
                    }
                }
            }
            int f = flags;
            boolean unigrams = Params.bool(s, "output_unigrams", false);
            return of(name, ts -> new CJKBigramFilter(ts, f, unigrams));
        });
        m.put("truncate", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            int len = Params.intParam(s, "length", 10, 1);
            return of(name, ts -> new TruncateTokenFilter(ts, len));
        }));
        m.put("unique", (is, env, name, s) -> {
            boolean samePos = Params.bool(s, "only_on_same_position", false);
            return of(name, ts -> samePos ? new RemoveDuplicatesTokenFilter(ts) : new UniqueFilter(ts));
        });
        m.put("length", (is, env, name, s) -> {
            int min = Params.intParam(s, "min", 0, 0);
            int max = Params.intParam(s, "max", Integer.MAX_VALUE, 0);
            return of(name, ts -> new LengthFilter(ts, min, max));
        });
        m.put("limit", (is, env, name, s) -> {
            int max = Params.intParam(s, "max_token_count", 1, 0);
            boolean all = Params.bool(s, "consume_all_tokens", false);
            return of(name, ts -> new LimitTokenCountFilter(ts, max, all));
        });
        m.put("elision", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            boolean ic = Params.bool(s, "articles_case", false);
            CharArraySet articles = Params.words(s, "articles", null, ic);
            if (articles == null) {
                throw new IllegalArgumentException("elision filter requires [articles] or [articles_path] setting");
            }
            return normalizing(name, ts -> new ElisionFilter(ts, articles));
        }));
        m.put("keep", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            CharArraySet words = Params.words(s, "keep_words", null, Params.bool(s, "keep_words_case", false));
            if (words == null) {
                throw new IllegalArgumentException("keep requires [keep_words] or [keep_words_path] to be configured");
            }
            return of(name, ts -> new KeepWordFilter(ts, words));
        }));
        m.put("keep_types", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            List<String> types = Params.list(s, "types");
            if (types == null) {
                throw new IllegalArgumentException("keep_types requires [types] to be configured");
            }
            String mode = s.get("mode", "include");
            if (!mode.equals("include") && !mode.equals("exclude")) {
                throw new IllegalArgumentException("`keep_types` tokenfilter mode can only be [include] or [exclude] but was [" + mode + "].");
            }
            Set<String> set = new HashSet<>(types);
            boolean include = mode.equals("include");
            return of(name, ts -> new TypeTokenFilter(ts, set, include));
        }));
        m.put("keyword_marker", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            boolean ic = Params.bool(s, "ignore_case", false);
            String pattern = s.get("keywords_pattern");
            CharArraySet words = Params.words(s, "keywords", null, ic);
            if (pattern != null && words != null) {
                throw new IllegalArgumentException("cannot specify both `keywords_pattern` and `keywords` or `keywords_path`");
            }
            if (pattern != null) {
                Pattern p = Pattern.compile(pattern);
                return of(name, ts -> new PatternKeywordMarkerFilter(ts, p));
            }
            if (words == null) {
                throw new IllegalArgumentException("keyword filter requires either `keywords`, `keywords_path`, or `keywords_pattern` to be configured");
            }
            return of(name, ts -> new SetKeywordMarkerFilter(ts, words));
        }));
        m.put("ngram", (is, env, name, s) -> ngram(is, name, s, false));
        m.put("edge_ngram", (is, env, name, s) -> ngram(is, name, s, true));
        m.put("pattern_replace", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            Pattern p = Params.pattern(s, "pattern", null);
            String repl = s.get("replacement", "");
            boolean all = Params.bool(s, "all", true);
            return of(name, ts -> new PatternReplaceFilter(ts, p, repl, all));
        }));
        m.put("pattern_capture", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            List<String> ps = Params.list(s, "patterns");
            if (ps == null || ps.isEmpty()) {
                throw new IllegalArgumentException("required setting 'patterns' is missing for token filter [" + name + "]");
            }
            Pattern[] patterns = ps.stream().map(Pattern::compile).toArray(Pattern[]::new);
            boolean keep = Params.bool(s, "preserve_original", true);
            return of(name, ts -> new PatternCaptureGroupTokenFilter(ts, keep, patterns));
        }));
        m.put("fingerprint", (is, env, name, s) -> {
            String sep = s.get("separator", " ");
            if (sep.length() != 1) {
                throw new IllegalArgumentException("Setting [separator] must be a single, non-null character. [" + sep + "] was provided.");
            }
            int max = Params.intParam(s, "max_output_size", 255, 1);
            return of(name, ts -> new FingerprintFilter(ts, max, sep.charAt(0)));
        });
        m.put("common_grams", AnalysisPlugin.requiresAnalysisSettings((is, env, name, s) -> {
            CharArraySet words = Params.words(s, "common_words", null, Params.bool(s, "ignore_case", false));
            if (words == null) {
                throw new IllegalArgumentException("missing or empty [common_words] or [common_words_path] configuration for common_grams token filter");
            }
            boolean query = Params.bool(s, "query_mode", false);
            return of(name, ts -> query ? new CommonGramsQueryFilter(new CommonGramsFilter(ts, words)) : new CommonGramsFilter(ts, words));
        }));
        m.put("snowball", (is, env, name, s) -> {
            String lang = s.get("language", "English");
            return of(name, ts -> new SnowballFilter(ts, lang));
        });
        m.put("stemmer", (is, env, name, s) -> {
            String lang = s.get("language", s.get("name", "english"));
            UnaryOperator<TokenStream> op = stemmer(lang);
            return of(name, op);
        });
        m.put("word_delimiter", (is, env, name, s) -> wordDelimiter(name, s, false));
        m.put("word_delimiter_graph", (is, env, name, s) -> wordDelimiter(name, s, true));
        return m;
    }

    /** The stemmer filter's language names (elastic.co "Stemmer token filter") on their Lucene filters. */
    static UnaryOperator<TokenStream> stemmer(String language) {
        String l = language.toLowerCase(Locale.ROOT);
        switch (l) {
            case "english", "porter":
                return PorterStemFilter::new;
            case "light_english", "kstem":
                return KStemFilter::new;
            case "minimal_english":
                return EnglishMinimalStemFilter::new;
            case "possessive_english":
                return EnglishPossessiveFilter::new;
            case "porter2":
                return ts -> new SnowballFilter(ts, "English");
            case "light_german", "light_german2":
                return GermanLightStemFilter::new;
            case "minimal_german":
                return GermanMinimalStemFilter::new;
            case "light_french":
                return FrenchLightStemFilter::new;
            case "minimal_french":
                return FrenchMinimalStemFilter::new;
            case "light_spanish":
                return SpanishLightStemFilter::new;
            case "light_italian":
                return ItalianLightStemFilter::new;
            case "light_portuguese":
                return PortugueseLightStemFilter::new;
            default:
                break;
        }
        // the Snowball stemmers by their language name (german, french, russian, dutch, ...)
        String snowball = Character.toUpperCase(l.charAt(0)) + l.substring(1);
        try {
            Class.forName("org.tartarus.snowball.ext." + snowball + "Stemmer", false, SnowballFilter.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("stemmer language [" + language + "] is not in the bulkfleet dev cluster's"
                + " analysis module (it has english, light_english, minimal_english, possessive_english, porter2, the light_"
                + " and minimal_ stemmers of german, french, spanish, italian, portuguese, and the Snowball languages)");
        }
        return ts -> new SnowballFilter(ts, snowball);
    }

    private static TokenFilterFactory ngram(IndexSettings is, String name, Settings s, boolean edge) {
        int min = Params.intParam(s, "min_gram", 1, 1);
        int max = Params.intParam(s, "max_gram", 2, 1);
        boolean keep = Params.bool(s, "preserve_original", false);
        if (!edge && is != null && max - min > is.getMaxNgramDiff()) {
            throw new IllegalArgumentException("The difference between max_gram and min_gram in NGram Tokenizer must be less than"
                + " or equal to: [" + is.getMaxNgramDiff() + "] but was [" + (max - min) + "]. This limit can be set by changing the ["
                + IndexSettings.MAX_NGRAM_DIFF_SETTING.getKey() + "] index level setting.");
        }
        if (edge) {
            String side = s.get("side", "front");
            if (side.equals("back")) {
                return of(name, ts -> new ReverseStringFilter(new EdgeNGramTokenFilter(new ReverseStringFilter(ts), min, max, keep)));
            }
            return of(name, ts -> new EdgeNGramTokenFilter(ts, min, max, keep));
        }
        return of(name, ts -> new NGramTokenFilter(ts, min, max, keep));
    }

    private static TokenFilterFactory wordDelimiter(String name, Settings s, boolean graph) {
        int flags = 0;
        flags |= flag(s, "generate_word_parts", true, WordDelimiterFilter.GENERATE_WORD_PARTS);
        flags |= flag(s, "generate_number_parts", true, WordDelimiterFilter.GENERATE_NUMBER_PARTS);
        flags |= flag(s, "catenate_words", false, WordDelimiterFilter.CATENATE_WORDS);
        flags |= flag(s, "catenate_numbers", false, WordDelimiterFilter.CATENATE_NUMBERS);
        flags |= flag(s, "catenate_all", false, WordDelimiterFilter.CATENATE_ALL);
        flags |= flag(s, "split_on_case_change", true, WordDelimiterFilter.SPLIT_ON_CASE_CHANGE);
        flags |= flag(s, "preserve_original", false, WordDelimiterFilter.PRESERVE_ORIGINAL);
        flags |= flag(s, "split_on_numerics", true, WordDelimiterFilter.SPLIT_ON_NUMERICS);
        flags |= flag(s, "stem_english_possessive", true, WordDelimiterFilter.STEM_ENGLISH_POSSESSIVE);
        if (graph) {
            flags |= flag(s, "ignore_keywords", false, WordDelimiterGraphFilter.IGNORE_KEYWORDS);
        }
        List<String> prot = Params.list(s, "protected_words");
        CharArraySet protWords = prot == null ? null : new CharArraySet(prot, false);
        List<String> table = Params.list(s, "type_table");
        byte[] types = table == null ? WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE : typeTable(table);
        boolean adjust = Params.bool(s, "adjust_offsets", true);
        int f = flags;
        if (graph) {
            return of(name, ts -> new WordDelimiterGraphFilter(ts, adjust, types, f, protWords));
        }
        return of(name, ts -> new WordDelimiterFilter(ts, types, f, protWords));
    }

    private static int flag(Settings s, String key, boolean def, int bit) {
        return Params.bool(s, key, def) ? bit : 0;
    }

    /** type_table rules "c => TYPE" with TYPE one of LOWER, UPPER, ALPHA, DIGIT, ALPHANUM, SUBWORD_DELIM. */
    static byte[] typeTable(List<String> lines) {
        Map<Character, Byte> map = new TreeMap<>();
        for (String[] r : Params.rules(lines, "type_table")) {
            if (r[0].length() != 1) {
                throw new IllegalArgumentException("Invalid Mapping Rule : [" + String.join(" => ", r) + "]");
            }
            byte t = switch (r[1].toUpperCase(Locale.ROOT)) {
                case "LOWER" -> WordDelimiterFilter.LOWER;
                case "UPPER" -> WordDelimiterFilter.UPPER;
                case "ALPHA" -> WordDelimiterFilter.ALPHA;
                case "DIGIT" -> WordDelimiterFilter.DIGIT;
                case "ALPHANUM" -> WordDelimiterFilter.ALPHANUM;
                case "SUBWORD_DELIM" -> WordDelimiterFilter.SUBWORD_DELIM;
                default -> throw new IllegalArgumentException("Invalid Mapping Rule : [" + String.join(" => ", r) + "]");
            };
            map.put(r[0].charAt(0), t);
        }
        byte[] def = WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE;
        int size = def.length;
        for (char c : map.keySet()) {
            size = Math.max(size, c + 1);
        }
        byte[] out = new byte[size];
        for (int i = 0; i < size; i++) {
            out[i] = i < def.length ? def[i] : WordDelimiterIterator.getType(i);
        }
        map.forEach((c, t) -> out[c] = t);
        return out;
    }

    /** Elasticsearch's unique filter: drops a term seen before in the same stream. */
    static final class UniqueFilter extends TokenFilter {
        private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
        private final CharArraySet seen = new CharArraySet(8, false);

        UniqueFilter(TokenStream in) {
            super(in);
        }

        @Override
        public boolean incrementToken() throws IOException {
            while (input.incrementToken()) {
                char[] b = term.buffer();
                int len = term.length();
                if (!seen.contains(b, 0, len)) {
                    seen.add(new String(b, 0, len));
                    return true;
                }
            }
            return false;
        }

        @Override
        public void reset() throws IOException {
            super.reset();
            seen.clear();
        }
    }
}
