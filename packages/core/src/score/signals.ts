/**
 * What a client's own new text says beyond tone: churn intent, a chaser (follow-up), and whether
 * it expects an answer from us. See docs/signals.md for the rules, word lists and measured
 * precision / recall.
 *
 * Method: a hand-written scanner splits the (capped) text into sentences of lower-cased word
 * tokens with clause marks, keeping each sentence's offsets so the churn sentence can be quoted.
 * Each rule is anchored on one token and looks at most a few tokens either side, so the whole
 * pass is linear in the text. No regular expression with a quantifier is run on the input.
 *
 * Churn intent is decided per sentence:
 * - churn verbs (cancel, terminate, end, close, stop, drop, leave, move to X, go with X, ...) count
 *   when their object is the contract / account / product, or when they stand bare ("we will
 *   cancel"), and not when the object is logistics ("cancel the meeting", "terminate the API key");
 * - retention words (renew, extend, continue, stay, justify, need, use) count when negated
 *   ("we will not renew", "can't justify the renewal");
 * - churn words count only when not negated ("we are not cancelling", "no plans to leave") and not
 *   inside a hypothetical about us ("if you need us to cancel the old invoice", "whether we renew");
 *   a conditional threat by the client ("unless this is fixed we will cancel") does count.
 */
import { isSpace, isWordChar, NEGATING_CONTRACTIONS } from './tokens.js';

/** Bits of the interactions.signals column. */
export const SIGNAL_BITS = Object.freeze({ churnIntent: 1, followUp: 2, needsReply: 4 } as const);

export interface TextSignals {
  /** The text states an intent to leave / not renew / cancel / terminate / move to or evaluate a competitor / asks for the termination clause / budget cut for the product... */
  churnIntent: boolean;
  /** A chaser: "following up again", "still waiting", "any update on this?", "I haven't heard back", "third time I'm asking", "bumping this"… */
  followUp: boolean;
  /** The message expects an answer from us: a question, a request ("please send", "can you", "let me know", "could you look into"), a complaint or a problem report, a chaser, a churn threat. A pure acknowledgement or thanks/closing ("Thanks, that works!", "Great, talk next month", "Got it, cheers") is false. */
  needsReply: boolean;
  /** The bit set of the three (SIGNAL_BITS). */
  bits: number;
  /** The sentence that states churn intent (trimmed, at most 200 characters), else null. */
  churnSentence: string | null;
}

/** Only the start of a message is read: a client's own new text is short, and this bounds the work. */
const MAX_CHARS = 20_000;
/** Longest churn sentence returned. */
const MAX_SENTENCE = 200;

// ---------------------------------------------------------------------------------------------
// Tokens and sentences
// ---------------------------------------------------------------------------------------------

/** Clause mark token (comma, semicolon, colon, bracket, dash). */
const CLAUSE = ',';

interface Sentence {
  /** Lower-cased word tokens, contractions expanded, with CLAUSE marks. */
  tokens: string[];
  /** caps[i]: the original word of tokens[i] started with a capital letter. */
  caps: boolean[];
  /** Offsets of the sentence in the capped text. */
  start: number;
  end: number;
  question: boolean;
}

/** A short line starting with one of these and ending in a comma ("Hi Tom,", "Best,") is a sentence of its own. */
const GREETINGS = new Set([
  'hi',
  'hello',
  'hey',
  'dear',
  'good',
  'morning',
  'afternoon',
  'evening',
  'greetings',
  'regards',
  'best',
  'thanks',
  'thank',
  'cheers',
  'sincerely',
  'kind',
  'warm',
  'warmly',
  'many',
  'all',
  'team',
  'hallo',
  'bonjour',
  'hola',
]);

function isApostrophe(c: number): boolean {
  return c === 39 || c === 0x2019 || c === 0x2018 || c === 0x02bc;
}

// A Map, not an object literal: a word like "constructor" must not hit Object.prototype.
const CONTRACTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ...NEGATING_CONTRACTIONS,
  ['im', ['i', 'am']],
  ["let's", ['let', 'us']],
  ['gonna', ['going', 'to']],
  ['wanna', ['want', 'to']],
]);
/** "still nothing firm / new / definite": news that has not come, not an answer we owe. */
const NEWS_ADJECTIVES = new Set(['firm', 'new', 'definite', 'definitive', 'concrete', 'official', 'certain', 'final', 'decided']);
/** Words whose "'s" is "is", not a possessive. */
const S_IS = new Set(['it', 'that', 'what', 'there', 'here', 'he', 'she', 'who', 'where', 'how', 'this', 'everything', 'nothing']);
const SUFFIXES: ReadonlyMap<string, string> = new Map([
  ["'re", 'are'],
  ["'ve", 'have'],
  ["'ll", 'will'],
  ["'d", 'would'],
  ["'m", 'am'],
]);

function pushWord(s: Sentence, raw: string): void {
  const cap = raw.length > 0 && raw[0] !== raw[0]!.toLowerCase();
  let w = raw.toLowerCase();
  if (w.includes('\u2019') || w.includes('\u2018') || w.includes('\u02bc')) w = w.replace(/[\u2018\u2019\u02bc]/g, "'");
  const push = (t: string): void => {
    s.tokens.push(t);
    s.caps.push(cap);
  };
  const fixed = CONTRACTIONS.get(w);
  if (fixed) {
    for (const f of fixed) push(f);
    return;
  }
  const q = w.indexOf("'");
  if (q > 0) {
    const stem = w.slice(0, q);
    const suffix = w.slice(q);
    if (suffix === "'t" && stem.endsWith('n')) {
      push(stem.slice(0, -1));
      push('not');
      return;
    }
    const expanded = SUFFIXES.get(suffix);
    if (expanded !== undefined) {
      push(stem);
      push(expanded);
      return;
    }
    if (suffix === "'s") {
      push(stem);
      if (S_IS.has(stem)) push('is');
      return;
    }
  }
  push(w);
}

/**
 * Splits text into sentences. A sentence ends at . ! ? followed by a space, a quote, a bracket or
 * the end (so "acme.com" and "3.5" do not end one), at a blank line, before a bulleted line, and
 * after a short greeting line ending in a comma ("Hi Tom,"). Linear: each character is looked at
 * a bounded number of times.
 */
function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  let cur: Sentence = { tokens: [], caps: [], start: -1, end: 0, question: false };
  let words = 0;
  const end = (question: boolean, at: number): void => {
    if (words > 0) {
      cur.question = question;
      cur.end = at;
      out.push(cur);
    }
    cur = { tokens: [], caps: [], start: -1, end: 0, question: false };
    words = 0;
  };
  const clause = (): void => {
    if (cur.tokens.length > 0 && cur.tokens[cur.tokens.length - 1] !== CLAUSE) {
      cur.tokens.push(CLAUSE);
      cur.caps.push(false);
    }
  };
  const n = text.length;
  let i = 0;
  let lastNonSpace = 0; // char code of the last non-space character seen
  while (i < n) {
    const c = text.charCodeAt(i);
    const ch = text[i] as string;
    if (isWordChar(c, ch)) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (isWordChar(d, text[i] as string)) i++;
        else if (isApostrophe(d) && i + 1 < n && isWordChar(text.charCodeAt(i + 1), text[i + 1] as string)) i += 2;
        else break;
      }
      if (cur.start < 0) cur.start = start;
      cur.end = i;
      pushWord(cur, text.slice(start, i));
      words++;
      lastNonSpace = 97;
      continue;
    }
    if (c === 46 || c === 33 || c === 63) {
      let question = false;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 63) question = true;
        else if (d !== 46 && d !== 33) break;
        i++;
      }
      lastNonSpace = c;
      const next = i < n ? text.charCodeAt(i) : 32;
      if (isSpace(next) || next === 34 || next === 39 || next === 41 || next === 93 || next === 0x201d || next === 0x2019) end(question, i);
      continue;
    }
    if (c === 10) {
      // Blank line, bullet, or a short greeting line ending in a comma: a sentence boundary.
      let j = i + 1;
      while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9 || text.charCodeAt(j) === 13)) j++;
      const d = j < n ? text.charCodeAt(j) : 10;
      const bullet = d === 45 || d === 42 || d === 0x2022 || d === 62;
      if (d === 10 || bullet || (lastNonSpace === 44 && words <= 4 && GREETINGS.has(cur.tokens[0] ?? ''))) {
        end(false, i);
        i = j;
        continue;
      }
      i++;
      continue;
    }
    if (!isSpace(c)) lastNonSpace = c;
    if (c === 44 || c === 59 || c === 58 || c === 40 || c === 41 || c === 0x2013 || c === 0x2014) clause();
    else if (c === 45 && i > 0 && i + 1 < n && isSpace(text.charCodeAt(i - 1)) && isSpace(text.charCodeAt(i + 1))) clause();
    i++;
  }
  end(false, n);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Word lists
// ---------------------------------------------------------------------------------------------

const set = (words: string): ReadonlySet<string> => new Set(words.split(' '));

/** Flip the meaning of a churn or retention word within the bridge reach. */
const NEGATORS = set('not no never none nothing neither nor unlikely non hardly nobody');
/** Words that do not end a negation's reach: "no plans to leave", "not sure we can justify". */
const BRIDGE = set(
  'be been being going to intend intending intention intentions plan plans planning want wanting wish expect expecting ' +
    'able likely sure we i can could will would should shall may might must have has had do does did decided deciding ' +
    'any the our a an of currently yet longer really actually seriously considering thinking looking about at auto ' +
    'even ever just immediately right now interested in desire need anymore',
);
const HYPOTHETICAL = set('if whether');
/** Subject pronouns: the nearest one before a word is taken as its subject. */
const PRONOUNS = set('you us we i they it this that he she nothing someone');
const BE_AUX = set('be been being is are was were get got gets getting');

/** The deal itself: a churn verb on one of these is churn ("cancel our subscription"). */
const CONTRACT_OBJECTS = set(
  'account accounts subscription subscriptions contract contracts agreement agreements licence licences license licenses ' +
    'plan membership service services seats renewal workspace everything partnership relationship deal platform product ' +
    'tool software solution app yours',
);
/** Logistics: a churn verb on one of these is housekeeping ("cancel the meeting", "terminate the API key"). */
const LOGISTICS = set(
  'meeting meetings call calls invite invites invitation appointment session sessions webinar demo sync kickoff standup ' +
    'lunch dinner reservation booking flight event training workshop interview trip order orders invoice invoices po ' +
    'payment payments charge transaction refund job jobs process processes export exports import imports run runs report ' +
    'reports token tokens key keys certificate certificates cert password ticket tickets request requests note notes task ' +
    'tasks query upload download integration integrations notification notifications email emails mail newsletter ' +
    'newsletters digest digests reminder reminders alert alerts update updates message messages mailing marketing user ' +
    'users instance instances environment sandbox staging test tests domain verification link campaign survey feature ' +
    'module draft document file files contact contacts duplicate monday tuesday wednesday thursday friday saturday ' +
    'sunday today tomorrow tonight week weekend month hold subscriber webhook webhooks schedule schedules script ' +
    'query queries build deployment deploy migration server servers vm container rule filter filters',
);
/** "subscription to the newsletter": the subscription is to notifications, not the product. */
const NOTIFICATION = set('newsletter newsletters digest digests emails email mailing marketing notifications alerts updates blog list mails reminders');
/** Nouns that stand for the product when "your" precedes them ("your tool"). */
const PRODUCT_NOUNS = set(
  'tool tools product products platform service services software app application system solution subscription licence ' +
    'license licences licenses contract agreement account seats plan offering company team',
);
/** "the platform": the product when named with "the" ("leave the platform"), unlike "the company". */
const THE_PRODUCT = set('platform service product tool software app system solution');
/** Words that by themselves name the deal (for passives, budgets, "first thing to go"). */
const DEAL_WORDS = set('subscription subscriptions licence licences license licenses contract agreement seats renewal yours');
/** A churn verb followed by one of these (nothing else in between) stands bare: "we will cancel at the end of the term". */
const BARE_FOLLOW = set(
  'after at in on by from as when once before until unless if next then now soon immediately effective asap ' +
    'altogether entirely completely too anyway because due given so sorry please over within end',
);
/** Determiners and modifiers skipped when looking for an object. */
const SKIPPABLE = set(
  'the a an our my your this that these those all any entire whole current existing old of both full annual monthly ' +
    'yearly premium pro and its their his her whole remaining',
);
const VENDOR_NOUNS = set(
  'vendor vendors provider providers supplier suppliers solution solutions tool tools platform platforms product products ' +
    'service services system systems option options partner partners company companies competitor competitors ' +
    'alternative alternatives software offering offerings',
);
/** Modifiers that make a vendor noun another vendor: "another supplier", "a cheaper option". */
const OTHER_MODIFIERS = set('another other different new cheaper alternative rival competing second third cheap better one');
/** Capitalised words that are not product names. */
const COMMON_CAPS = set(
  'i monday tuesday wednesday thursday friday saturday sunday january february march april may june july august ' +
    'september october november december english german french spanish italian dutch eu us uk usa europe q1 q2 q3 q4 ' +
    'ok okay thanks hi hello dear ceo cfo cto coo vp it',
);

// Verbs
const STRONG_CHURN = set(
  'cancel cancels cancelled canceled cancelling canceling terminate terminates terminated terminating discontinue ' +
    'discontinues discontinued discontinuing quit quitting',
);
/** "the end of the contract", "tail-end", "start and end date": a noun, not the verb. */
const NOUN_BEFORE = set('the a an tail start year month week quarter term its this that');
/** Weak verbs that are churn with "you" as object ("replace you"), unlike "drop you a line", "stop you". */
const YOU_OBJECT_VERBS = set('replace replacing replaced ditch ditching ditched');
const WEAK_CHURN = set(
  'end ending ended close closing closed stop stopping stopped drop dropping dropped replace replacing replaced ditch ' +
    'ditching ditched exit exiting scrap scrapping scrapped axe axing axed',
);
/** Only a passive with the product as subject is churn: "yours will be dropped", "to be cut". */
const PASSIVE_CHURN = set('cut axed scrapped dropped cancelled canceled terminated discontinued replaced decommissioned retired');
/** Retention: churn when negated ("we will not renew"). */
const RENEW = set('renew renews renewed renewing extend extends extended extending');
const CONTINUE = set('continue continues continued continuing');
const STAY = set('stay staying stick sticking');
const NEED = set('need needs require requires use using want');
const JUSTIFY = set('justify justifying');
const JUSTIFY_NEG = set('not hard difficult tough struggle struggling struggled no impossible harder');
const LEAVE = set('leave leaving');
const LEAVE_NOUN_BEFORE = set(
  'on of annual sick maternity paternity parental medical a the my her his your their study personal vacation extended ' +
    'unpaid paid administrative bereavement compassionate shore',
);
const DITRANSITIVE_AFTER_YOU = set('my a an the our some this with these those');
const LEAVE_FOLLOW = set('when after before once by next soon now if unless too altogether entirely as in');
const MOVE = set(
  'move moving moved migrate migrating migrated switch switching switched transition transitioning transitioned go ' + 'going change changing changed',
);
/** "moving our support desk to Freshdesk", but not "switched our SSO provider to Okta". */
const MOVE_WITH_OBJECT = set('move moving moved migrate migrating migrated transition transitioning transitioned');
const INFRA = set(
  'provider sso idp office offices domain dns data email mail billing payroll hr erp calendar accounting infrastructure ' +
    'servers hosting database warehouse language languages address phone bank',
);
const GO = set('go going goes went gone');
const GO_WITH = set('go going went gone sign signed signing partnering');
/** "in talks with another supplier"; a person's name does not count ("after speaking with Shweta"). */
const TALK_WITH = set('talks talking speaking negotiating');
const CHOOSE = set('chose chosen picked selected opted');
const EVALUATE = set(
  'evaluating evaluate considering consider exploring explore looking look comparing compare assessing assess ' +
    'researching research trialling trialing shopping talks talking find finding requested request list ' +
    'benchmarking benchmark',
);
const MODALS = set('will would might may could to shall must');
const OPTION_VERBS = set(
  'reviewing review weighing weigh exploring explore considering consider evaluating evaluate assessing assess reconsidering reconsider',
);
const COMPARE = set('comparing compare benchmarking benchmark comparison');
const OFFER_WORDS = set('offer offers quote quotes proposal proposals bid bids pricing');
const ELSEWHERE_VERBS = set('go going goes went take taking look looking move moving business shop shopping');
const BUDGET = set('budget budgets spend spending funding');
const BUDGET_CUT = set('cut cuts slashed reduced frozen freeze froze eliminated axed pulled');
const NON_PRODUCT_BUDGET = set(
  'travel events event marketing hiring headcount training conferences conference offsite hardware office swag ' + 'catering advertising ads recruiting',
);
const TERMINATION_NOUN = set('termination cancellation cancelation');
const TERMINATION_FOLLOW = set(
  'clause clauses fee fees terms term policy process procedure paperwork form notice letter penalty penalties date ' +
    'conditions provisions options rights request details',
);
/** "our notice", "formal notice", "give notice"; not "ten days notice" alone (a market notice). */
const NOTICE_BEFORE = set('our formal written give giving given serve serving served');
const RISK_WORDS = set('renewal contract account partnership subscription');
const OFFBOARD = set('offboard offboarding');
const WITH_OK = set('you your yours us effect immediate immediately notice regret');

// ---------------------------------------------------------------------------------------------
// Churn intent
// ---------------------------------------------------------------------------------------------

type ObjectKind = 'contract' | 'logistics' | 'third' | 'bare' | 'it' | 'you' | 'unknown';

class SentenceView {
  readonly t: readonly string[];
  readonly n: number;
  /** neg[i]: a negator governs token i. */
  readonly neg: boolean[];
  /** hypo[i]: token i lies in an "if" (1) or "whether" (2) clause; hypoStart[i] where it began. */
  readonly hypo: number[];
  readonly hypoStart: number[];
  /** The clause of token i has an after-the-fact negation ("... is off the table"). */
  readonly postNeg: boolean[];
  readonly hasProductRef: boolean;
  /** Set by objectAfter: where the deal word was, and whether only determiners came before it. */
  objectIndex = -1;
  objectDirect = false;
  /** Most words capitalised (a shouted sentence or a heading): capitals do not mark names. */
  readonly shouting: boolean;
  /** The sentence names a non-product budget ("travel", "events"). */
  readonly otherBudget: boolean;
  /** The sentence has an asking verb ("third time I'm asking"). */
  readonly askVerb: boolean;

  constructor(readonly s: Sentence) {
    const t = s.tokens;
    this.t = t;
    this.n = t.length;
    this.neg = new Array<boolean>(this.n).fill(false);
    this.hypo = new Array<number>(this.n).fill(0);
    this.hypoStart = new Array<number>(this.n).fill(-1);
    this.postNeg = new Array<boolean>(this.n).fill(false);
    let negOn = false;
    let hypo = 0;
    let hypoStart = -1;
    let clauseStart = 0;
    let productRef = false;
    const closeClause = (endAt: number, post: boolean): void => {
      if (post) for (let k = clauseStart; k < endAt; k++) this.postNeg[k] = true;
      clauseStart = endAt + 1;
    };
    let post = false;
    for (let i = 0; i < this.n; i++) {
      const w = t[i] as string;
      if (w === CLAUSE) {
        closeClause(i, post);
        post = false;
        negOn = false;
        hypo = 0;
        continue;
      }
      this.neg[i] = negOn;
      this.hypo[i] = hypo;
      this.hypoStart[i] = hypoStart;
      if (this.isProductRef(i)) productRef = true;
      if (this.isPostNegation(i)) post = true;
      if (this.isNegator(i)) {
        negOn = true;
        continue;
      }
      if (HYPOTHETICAL.has(w) || (w === 'case' && t[i - 1] === 'in')) {
        hypo = w === 'whether' ? 2 : 1;
        hypoStart = i;
        negOn = false;
        continue;
      }
      if (!BRIDGE.has(w)) negOn = false;
    }
    closeClause(this.n, post);
    this.hasProductRef = productRef;
    let words = 0;
    let capped = 0;
    let otherBudget = false;
    let askVerb = false;
    for (let i = 0; i < this.n; i++) {
      const w = t[i] as string;
      if (w === CLAUSE) continue;
      words++;
      if (s.caps[i]) capped++;
      if (NON_PRODUCT_BUDGET.has(w)) otherBudget = true;
      if (ASK_VERBS.has(w)) askVerb = true;
    }
    this.otherBudget = otherBudget;
    this.askVerb = askVerb;
    this.shouting = words >= 3 && capped * 10 >= words * 6;
  }

  at(i: number): string {
    return this.t[i] ?? CLAUSE;
  }

  private isNegator(i: number): boolean {
    const w = this.t[i] as string;
    if (w === 'no' && this.at(i + 1) === 'doubt') return false;
    if (NEGATORS.has(w)) return true;
    if (w === 'doubt' && this.at(i - 1) !== 'no') return true;
    if (w === 'instead' && this.at(i + 1) === 'of') return true;
    if (w === 'rather' && this.at(i + 1) === 'than') return true;
    return false;
  }

  /** "... is off the table", "... is out of the question", "... is not an option". */
  private isPostNegation(i: number): boolean {
    const w = this.t[i];
    if (w === 'off') return this.at(i + 1) === 'the' && this.at(i + 2) === 'table';
    if (w === 'out') return this.at(i + 1) === 'of' && this.at(i + 2) === 'the' && this.at(i + 3) === 'question';
    return false;
  }

  /** yours; your tool / your product / ...; our subscription / the licence / ... */
  isProductRef(i: number): boolean {
    const w = this.t[i] as string;
    if (w === 'yours' || DEAL_WORDS.has(w)) return true;
    if (w === 'your') return PRODUCT_NOUNS.has(this.at(i + 1)) || PRODUCT_NOUNS.has(this.at(i + 2));
    return false;
  }

  /** A capitalised word that is not the sentence's first word nor a common capitalised word. */
  isName(j: number): boolean {
    if (j <= 0 || j >= this.n) return false;
    const w = this.t[j] as string;
    if (w === CLAUSE || !this.s.caps[j] || COMMON_CAPS.has(w) || this.shouting) return false;
    return !/^[0-9]/.test(w);
  }

  /** A competitor as a target: "Zendesk", "a competitor", "another supplier", "a cheaper option". */
  isCompetitorTarget(j: number): boolean {
    const w = this.at(j);
    if (w === 'competitor' || w === 'competitors' || w === 'alternative' || w === 'alternatives') return true;
    if (this.isName(j)) return true;
    let other = false;
    for (let k = j; k < Math.min(this.n, j + 4); k++) {
      const x = this.at(k);
      if (x === 'competitor' || x === 'competitors') return true;
      if (OTHER_MODIFIERS.has(x)) {
        other = true;
        continue;
      }
      if (x === 'a' || x === 'an' || x === 'the' || x === 'some' || x === 'much' || x === 'more') continue;
      return other && VENDOR_NOUNS.has(x);
    }
    return false;
  }

  /**
   * What the word at i acts on: looks at most 5 tokens ahead in the clause, skipping determiners.
   * A deal word whose next words say "with <someone else>" or "to the newsletter" is not the deal.
   */
  objectAfter(i: number): ObjectKind {
    let seen = false;
    this.objectIndex = -1;
    this.objectDirect = false;
    for (let j = i + 1; j <= i + 5; j++) {
      const w = this.at(j);
      if (w === CLAUSE) return seen ? 'unknown' : 'bare';
      if (LOGISTICS.has(w)) return 'logistics';
      if (CONTRACT_OBJECTS.has(w)) {
        this.objectIndex = j;
        this.objectDirect = !seen;
        return this.dealSuffix(j);
      }
      if (w === 'you') return seen ? 'unknown' : 'you';
      if (w === 'it' && !seen) return 'it';
      if (!seen && BARE_FOLLOW.has(w)) return 'bare';
      if (SKIPPABLE.has(w)) continue;
      seen = true;
    }
    return 'unknown';
  }

  private dealSuffix(j: number): ObjectKind {
    for (let k = j + 1; k <= j + 4; k++) {
      const w = this.at(k);
      if (w === CLAUSE) break;
      if (NOTIFICATION.has(w)) return 'logistics';
      if (w === 'with') return WITH_OK.has(this.at(k + 1)) ? 'contract' : 'third';
    }
    return 'contract';
  }

  /** The nearest subject pronoun before i in the same clause (at most 8 tokens back). */
  subjectBefore(i: number, from = 0): string | null {
    for (let k = i - 1; k >= Math.max(from, i - 8); k--) {
      const w = this.t[k] as string;
      if (w === CLAUSE) return null;
      if (PRONOUNS.has(w)) return w;
    }
    return null;
  }

  /** A passive ("was terminated", "to be cut"): the word before (or two before) is an auxiliary. */
  isPassive(i: number): boolean {
    if (this.at(i).endsWith('ing')) return false; // "we are cancelling", "will be terminating"
    const p = this.at(i - 1);
    if (BE_AUX.has(p)) return true;
    return p !== CLAUSE && BE_AUX.has(this.at(i - 2)) && p.endsWith('ly');
  }

  productRefBefore(i: number, reach: number): boolean {
    for (let k = i - 1; k >= Math.max(0, i - reach); k--) {
      if (this.t[k] === CLAUSE) return false;
      if (this.isProductRef(k)) return true;
    }
    return false;
  }

  /**
   * A churn word at i is suppressed when inside "whether ...", or inside "if ..." whose nearest
   * subject is "you" or "us" ("if you need us to cancel the old invoice"): a hypothetical about
   * us, not a threat. "if we don't see an improvement, we will cancel" stays churn.
   */
  hypothetical(i: number): boolean {
    const h = this.hypo[i] ?? 0;
    if (h === 0) return false;
    if (h === 2) return true;
    const subject = this.subjectBefore(i, this.hypoStart[i] ?? 0);
    return subject === 'you' || subject === 'us';
  }

  /** A churn word that stands: not negated (before or after), not hypothetical. */
  churnHolds(i: number): boolean {
    return !this.neg[i] && !this.postNeg[i] && !this.hypothetical(i);
  }

  /** A retention word that is negated (or "off the table"): churn, unless hypothetical. */
  retentionNegated(i: number): boolean {
    return (this.neg[i] === true || this.postNeg[i] === true) && !this.hypothetical(i);
  }
}

/** Does the word at i state churn intent? Each rule looks at most a few tokens around i. */
function churnAt(v: SentenceView, i: number): boolean {
  const w = v.at(i);
  if (w === CLAUSE) return false;

  // cancel / terminate / discontinue: the deal, or bare ("we will cancel"); not logistics.
  if (STRONG_CHURN.has(w)) {
    if (v.isPassive(i)) return v.productRefBefore(i, 8) && v.churnHolds(i);
    const o = v.objectAfter(i);
    if (o === 'contract' || o === 'you') return v.churnHolds(i);
    if (o === 'bare') {
      // "we will cancel", "we're cancelling", "I want to cancel"; not a status list ("Cancelled - the account ...").
      const subject = v.subjectBefore(i);
      return (subject === 'we' || (subject === 'i' && w !== 'quit')) && v.churnHolds(i);
    }
    if (o === 'unknown' && v.at(i + 1) === 'auto') return v.churnHolds(i);
    return false;
  }
  // end / close / stop / drop / replace: only the deal ("end our subscription", "stop using your tool").
  if (WEAK_CHURN.has(w)) {
    if (v.isPassive(i)) return PASSIVE_CHURN.has(w) && v.productRefBefore(i, 8) && v.churnHolds(i);
    if (w.startsWith('stop') && (v.at(i + 1) === 'using' || v.at(i + 1) === 'paying')) {
      if (v.at(i + 1) === 'paying' && v.at(i + 2) === 'for' && (v.at(i + 3) === 'this' || v.at(i + 3) === 'it')) return v.churnHolds(i);
      const o = v.objectAfter(i + 1);
      return (o === 'contract' || o === 'you' || o === 'it') && v.churnHolds(i);
    }
    const before = v.at(i - 1);
    if ((w === 'end' || w === 'close') && (NOUN_BEFORE.has(before) || v.at(i + 1) === 'of' || (before === 'and' && v.at(i - 2) === 'start'))) {
      return false;
    }
    const o = v.objectAfter(i);
    if (o === 'contract' && v.objectDirect) return v.churnHolds(i);
    if (o === 'you' && YOU_OBJECT_VERBS.has(w)) return v.churnHolds(i);
    if (o === 'bare' && (w === 'stop' || w === 'stopping') && v.subjectBefore(i) === 'we') return v.churnHolds(i);
    return false;
  }
  if (PASSIVE_CHURN.has(w) && v.isPassive(i)) return v.productRefBefore(i, 8) && v.churnHolds(i);
  // "we will churn", "we might churn"; not "reduce churn", "our churn rate".
  if ((w === 'churn' && MODALS.has(v.at(i - 1))) || (w === 'churning' && BE_AUX.has(v.at(i - 1)))) {
    return v.subjectBefore(i) === 'we' && v.churnHolds(i);
  }
  // "we want out", "we are done with you"
  if (w === 'out' && (v.at(i - 1) === 'want' || v.at(i - 1) === 'wants') && v.at(i + 1) === CLAUSE) return v.churnHolds(i);
  if (w === 'done' && v.at(i + 1) === 'with' && (v.at(i + 2) === 'you' || v.isProductRef(i + 2))) return v.churnHolds(i);
  // "not proceed with the renewal"
  if ((w === 'proceed' || w === 'proceeding' || w === 'go' || w === 'going') && v.at(i + 1) === 'ahead' && v.at(i + 2) === 'with') {
    return v.retentionNegated(i) && v.objectAfter(i + 2) === 'contract';
  }
  if ((w === 'proceed' || w === 'proceeding') && v.at(i + 1) === 'with') return v.retentionNegated(i) && v.objectAfter(i + 1) === 'contract';
  // "reviewing our options", "weighing our options", "exploring all options"
  if ((w === 'options' || w === 'option') && (v.at(i - 1) === 'our' || v.at(i - 1) === 'all') && OPTION_VERBS.has(v.at(i - 2))) return v.churnHolds(i);

  // renew / extend, continue / stay, need / use, justify: churn when negated.
  if (RENEW.has(w)) {
    if (!v.retentionNegated(i)) return false;
    const o = v.objectAfter(i);
    return o !== 'logistics' && o !== 'third';
  }
  if (w === 'renewal') {
    if (v.retentionNegated(i)) return true;
    // "the renewal is at risk / on hold", "put the renewal out to tender"
    return riskAfter(v, i) && v.churnHolds(i);
  }
  if (RISK_WORDS.has(w)) return riskAfter(v, i) && v.churnHolds(i);
  if (CONTINUE.has(w)) {
    if (!v.retentionNegated(i)) return false;
    const o = v.objectAfter(i);
    if (o === 'bare' || o === 'contract' || o === 'it') return true;
    if (v.at(i + 1) === 'with') {
      return v.at(i + 2) === 'you' || v.isProductRef(i + 2) || CONTRACT_OBJECTS.has(v.at(i + 3)) || CONTRACT_OBJECTS.has(v.at(i + 2));
    }
    if (v.at(i + 1) === 'using') {
      const u = v.objectAfter(i + 1);
      return u === 'contract' || u === 'you';
    }
    return false;
  }
  if (STAY.has(w)) {
    // "we won't stay with you", "not sticking with your platform"; not "didn't want to stay in the bar".
    if (!v.retentionNegated(i)) return false;
    const p = v.at(i + 1);
    return (p === 'with' || p === 'on') && (v.at(i + 2) === 'you' || v.isProductRef(i + 2) || (v.at(i + 2) === 'the' && THE_PRODUCT.has(v.at(i + 3))));
  }
  if (NEED.has(w)) {
    // "we won't need the licences", "no longer need your service"; the deal must be ours: "your X",
    // "you", or a deal word (not "Arthur Andersen's services", not "the Kourtney Tool").
    if (!v.retentionNegated(i)) return false;
    for (let k = i + 1; k <= i + 3; k++) {
      const x = v.at(k);
      if (x === 'more' || x === 'additional' || x === 'extra' || x === 'another' || x === 'new') return false;
    }
    const o = v.objectAfter(i);
    if (o === 'you') return true;
    if (o !== 'contract' || !v.objectDirect) return false;
    const j = v.objectIndex;
    return DEAL_WORDS.has(v.at(j)) || v.at(j - 1) === 'your' || v.at(j - 2) === 'your';
  }
  if (JUSTIFY.has(w)) {
    if (v.hypothetical(i)) return false;
    if (v.neg[i]) return true;
    for (let k = i - 1; k >= Math.max(0, i - 4); k--) {
      const x = v.at(k);
      if (x === CLAUSE) break;
      if (JUSTIFY_NEG.has(x)) return true;
    }
    return false;
  }
  if (w === 'auto' && (v.at(i + 1) === 'renew' || v.at(i + 1) === 'renewal')) {
    for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
      const x = v.at(k);
      if (x === 'disable' || x === 'off' || x === 'stop' || x === 'cancel' || x === 'out') return v.churnHolds(i);
    }
    return false;
  }

  // leave / leaving: "we are leaving", "before we leave", "leave your platform"; not "leave a note",
  // "leave early", "on leave", "I'm leaving the company".
  if (LEAVE.has(w)) {
    if (LEAVE_NOUN_BEFORE.has(v.at(i - 1))) return false;
    const next = v.at(i + 1);
    let ok = false;
    let toUs = false;
    if (next === CLAUSE) ok = true;
    else if (next === 'you' && DITRANSITIVE_AFTER_YOU.has(v.at(i + 2)))
      ok = false; // "leave you my numbers"
    else if (next === 'you' || next === 'your' || next === 'yours' || (next === 'the' && THE_PRODUCT.has(v.at(i + 2)))) ok = toUs = true;
    else if (next === 'at') ok = v.at(i + 2) === 'the' && v.at(i + 3) === 'end';
    else if (next === 'for') ok = v.isCompetitorTarget(i + 2);
    else if (LEAVE_FOLLOW.has(next)) ok = true;
    if (!ok) return false;
    // Without "you / your platform" as object the subject must be "we": not "I'm leaving", "to stay or to leave".
    if (!toUs && v.subjectBefore(i) !== 'we') return false;
    return v.churnHolds(i);
  }

  // off / away: "migrating off your platform", "transitioning away from your tool".
  if (MOVE.has(w)) {
    const next = v.at(i + 1);
    // "migrating off your platform", "moving away from your tool"; not "switched off" (a setting), a
    // passive ("can be switched off"), "go away", "a going away party".
    if (next === 'away' || next === 'off') {
      if (!MOVE_WITH_OBJECT.has(w) || v.isPassive(i)) return false;
      const o = next === 'away' ? (v.at(i + 2) === 'from' ? v.objectAfter(i + 2) : 'none') : v.objectAfter(i + 1);
      return (o === 'contract' || o === 'you') && v.churnHolds(i);
    }
    if (next === 'to' && !GO.has(w)) {
      // "we're moving to Zendesk", "switching to another provider"; a bare name needs "we" as subject
      // ("Paul will be moving to London", "deals switched to ABN" are not us).
      if (v.isProductRef(i + 2) || v.at(i + 2) === 'you' || v.isPassive(i)) return false;
      if (v.isName(i + 2)) return v.subjectBefore(i) === 'we' && v.churnHolds(i);
      return v.isCompetitorTarget(i + 2) && v.churnHolds(i);
    }
    if (
      (w === 'switching' || w === 'changing' || w === 'switch' || w === 'change') &&
      (next === 'providers' ||
        next === 'vendors' ||
        next === 'suppliers' ||
        next === 'tools' ||
        next === 'platforms' ||
        next === 'solutions' ||
        next === 'systems')
    ) {
      return v.churnHolds(i);
    }
    if (MOVE_WITH_OBJECT.has(w)) {
      // "moving our support desk to Freshdesk": an object of at most 4 words, then "to <name>".
      for (let k = i + 1; k <= i + 5; k++) {
        const x = v.at(k);
        if (x === CLAUSE || LOGISTICS.has(x) || INFRA.has(x) || x === 'you' || x === 'more') return false;
        if (x === 'to') return k > i + 1 && v.at(i + 1) === 'our' && v.isName(k + 1) && v.churnHolds(i);
      }
    }
    // falls through: "go with" / "going elsewhere" below
  }

  // go with / sign with / in talks with <competitor>
  if (GO_WITH.has(w) && v.at(i + 1) === 'with') return v.isCompetitorTarget(i + 2) && v.churnHolds(i);
  if (TALK_WITH.has(w) && v.at(i + 1) === 'with') return !v.isName(i + 2) && v.isCompetitorTarget(i + 2) && v.churnHolds(i);
  // chose / picked / opted for <a different solution>; not the imperative "choose Workflow", not a passive.
  if (CHOOSE.has(w) && !v.isPassive(i)) {
    const j = v.at(i + 1) === 'for' ? i + 2 : i + 1;
    return v.at(j) !== 'you' && v.at(j) !== 'your' && v.isCompetitorTarget(j) && v.churnHolds(i);
  }
  if (w === 'elsewhere') {
    for (let k = i - 1; k >= Math.max(0, i - 4); k--) if (ELSEWHERE_VERBS.has(v.at(k))) return v.churnHolds(i);
    return false;
  }

  // Evaluating competitors: "looking at other vendors", "evaluating alternatives", "comparing you against ...".
  if (w === 'alternative' || w === 'alternatives') {
    if (v.at(i + 1) === 'to' && (v.at(i + 2) === 'you' || v.at(i + 2) === 'your')) return v.churnHolds(i);
  }
  if (isEvaluationRef(v, i)) {
    const compareOnly = OFFER_WORDS.has(w);
    for (let k = i - 1; k >= Math.max(0, i - 8); k--) {
      const x = v.at(k);
      if (compareOnly ? COMPARE.has(x) : EVALUATE.has(x)) return v.churnHolds(k) && v.churnHolds(i);
    }
    if (w === 'competitor' || w === 'competitors') {
      // "a competitor approached us with a much better offer"
      for (let k = i + 1; k <= Math.min(v.n - 1, i + 6); k++) {
        const x = v.at(k);
        if (x === 'approached' || x === 'offer' || x === 'offered' || x === 'quoted' || x === 'cheaper') return v.churnHolds(i);
      }
    }
    return false;
  }
  if (w === 'shopping' && v.at(i + 1) === 'around') return v.churnHolds(i);
  if (w === 'rfp' || w === 'rfi') return v.churnHolds(i);
  if (w === 'tender' && (v.at(i - 1) === 'to' || v.at(i + 1) === 'process')) return v.churnHolds(i);

  // Termination terms and notice: "the termination clause", "early termination", "notice period",
  // "our formal notice", "90 days notice".
  if (TERMINATION_NOUN.has(w)) {
    if (v.at(i - 1) === 'early' || TERMINATION_FOLLOW.has(v.at(i + 1))) return v.churnHolds(i);
    if (v.at(i + 1) === 'of') return v.objectAfter(i + 1) === 'contract' && v.churnHolds(i);
    return false;
  }
  if (w === 'notice') {
    if (v.at(i + 1) === 'period' || v.at(i + 1) === 'periods') return v.churnHolds(i);
    if (v.at(i + 1) === 'of' && (v.at(i + 2) === 'non' || TERMINATION_NOUN.has(v.at(i + 2)))) return v.churnHolds(i);
    for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
      const x = v.at(k);
      if (x === CLAUSE) break;
      if (NOTICE_BEFORE.has(x)) return v.churnHolds(i);
    }
    return false;
  }
  if (w === 'out' && v.at(i + 1) === 'of' && (v.at(i - 1) === 'get' || v.at(i - 1) === 'getting' || v.at(i - 1) === 'way')) {
    return v.objectAfter(i + 1) === 'contract' && v.churnHolds(i);
  }

  // Budget cut for the product: "our budget for Acme was cut", "frozen spending on your platform".
  if (BUDGET.has(w)) {
    let cut = -1;
    for (let k = Math.max(0, i - 4); k <= Math.min(v.n - 1, i + 6); k++) if (BUDGET_CUT.has(v.at(k))) cut = k;
    if (cut < 0) return false;
    if (v.otherBudget) return false;
    return v.churnHolds(i) && v.churnHolds(cut);
  }
  // "your subscription is the first thing to go", "let your tool go"
  if (w === 'go' && v.at(i - 1) === 'to' && v.hasProductRef) {
    for (let k = i - 2; k >= Math.max(0, i - 4); k--) if (v.at(k) === 'first' || v.at(k) === 'next') return v.churnHolds(i);
  }
  if (w === 'let') {
    for (let k = i + 1; k <= i + 4; k++) {
      if (v.at(k) === 'go') return k > i + 1 && v.productRefBefore(k, k - i - 1) && v.churnHolds(i);
    }
    return false;
  }
  if (w === 'wind' && v.hasProductRef) {
    if (v.at(i + 1) === 'down' || v.at(i + 2) === 'down') return v.churnHolds(i);
  }
  if (w === 'plug' && v.at(i - 1) === 'the' && (v.at(i - 2) === 'pull' || v.at(i - 2) === 'pulling' || v.at(i - 2) === 'pulled')) {
    return v.churnHolds(i - 2);
  }
  if ((w === 'shut' || w === 'shutting') && v.at(i + 1) === 'down') {
    const o = v.objectAfter(i + 1);
    return o === 'contract' && v.churnHolds(i);
  }
  if (w === 'day' && v.at(i - 1) === 'last') {
    const p = v.at(i + 1);
    if (p === 'on' || p === 'with' || p === 'using') {
      const o = v.objectAfter(i + 1);
      return (o === 'contract' || o === 'you') && v.churnHolds(i);
    }
  }
  if (OFFBOARD.has(w)) {
    const o = v.objectAfter(i);
    return (o === 'bare' || (v.at(i + 1) === 'from' && (v.at(i + 2) === 'you' || v.at(i + 2) === 'your'))) && v.churnHolds(i);
  }
  return false;
}

/** "renewal is at risk / on hold / under review", "put the renewal out to tender". */
function riskAfter(v: SentenceView, i: number): boolean {
  for (let k = i + 1; k <= Math.min(v.n - 1, i + 5); k++) {
    const x = v.at(k);
    if (x === CLAUSE) return false;
    if (x === 'at' && v.at(k + 1) === 'risk') return true;
    if (x === 'on' && v.at(k + 1) === 'hold') return true;
    if (x === 'under' && v.at(k + 1) === 'review') return true;
    if (x === 'in' && v.at(k + 1) === 'question') return true;
  }
  return false;
}

/** A competitor-ish noun that an evaluation verb before it would make churn. */
function isEvaluationRef(v: SentenceView, i: number): boolean {
  const w = v.at(i);
  if (w === 'competitor' || w === 'competitors' || w === 'alternatives') return true;
  // "alternative" as a noun only: "considering an alternative", not "alternative allocation methods".
  if (w === 'alternative') {
    const next = v.at(i + 1);
    return next === CLAUSE || next === 'to' || next === 'for' || VENDOR_NOUNS.has(next);
  }
  if (OFFER_WORDS.has(w)) return true;
  if (VENDOR_NOUNS.has(w)) {
    const p = v.at(i - 1);
    const p2 = v.at(i - 2);
    return OTHER_MODIFIERS.has(p) || (OTHER_MODIFIERS.has(p2) && p !== CLAUSE);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Follow-up (chaser)
// ---------------------------------------------------------------------------------------------

const CHASE_OBJECTS = set('email mail message note request question previous last earlier ticket inquiry enquiry this below above thread case');
const MEETING_WORDS = set('call meeting conversation chat discussion workshop session demo visit today yesterday talk presentation');
const ORDINAL_TIME = set('second third fourth fifth sixth 2nd 3rd 4th 5th multiple several numerous many umpteenth nth');
const ASK_VERBS = set(
  'ask asking asked request requesting requested write writing wrote email emailing emailed chase chasing chased raise ' +
    'raising raised reach reaching reached contact contacting contacted follow following remind reminding reminded mention ' +
    'mentioning mentioned',
);
const REPLY_WORDS = set('reply replies response responses answer answers word news update updates feedback');
const REMINDER_MOD = set('gentle friendly quick kind just another second final polite');
const COUNT_TIMES = set('two three four five several multiple many numerous twice');
const CHASE_APOLOGY = set('sorry hate apologies apologise apologize');
const FUTURE = set('will would to shall going');

/** "not heard from the person / the guy / the folks in …": someone else, not us. */
const THIRD_PERSONS = set('person people guy guys folks lady man woman');

/** "waiting for Dietmar", "heard from him", "heard from the person in Settlements": someone other than us. */
function thirdParty(v: SentenceView, j: number): boolean {
  const k = v.at(j) === 'for' || v.at(j) === 'on' ? j + 1 : j;
  const x = v.at(k);
  if (x === 'the' && THIRD_PERSONS.has(v.at(k + 1))) return true; // "from the person in Settlements"
  return x === 'him' || x === 'her' || x === 'them' || x === 'legal' || x === 'our' || x === 'my' || v.isName(k);
}

function followUpIn(v: SentenceView): boolean {
  const t = v.t;
  for (let i = 0; i < v.n; i++) {
    const w = t[i] as string;
    const next = v.at(i + 1);
    const prev = v.at(i - 1);
    if ((w === 'following' || w === 'follow') && next === 'up') {
      if (prev === 'for' || FUTURE.has(prev)) continue;
      const a = v.at(i + 2);
      if (a === 'again' || a === 'once') return true;
      if (a === 'on' || a === 'about' || a === 'regarding' || a === 're') {
        for (let k = i + 3; k <= i + 6; k++) {
          const x = v.at(k);
          if (MEETING_WORDS.has(x) || x === CLAUSE) break;
          if (CHASE_OBJECTS.has(x)) return true;
        }
      }
      continue;
    }
    if (w === 'still') {
      if ((next === 'waiting' || next === 'awaiting') && thirdParty(v, i + 2)) continue;
      // "still nothing firm / new on that" reports no news; "still nothing from you" chases.
      if (next === 'nothing' && NEWS_ADJECTIVES.has(v.at(i + 2))) continue;
      if (next === 'waiting' || next === 'nothing' || next === 'no' || next === 'awaiting' || next === 'chasing') return true;
      if ((next === 'have' || next === 'has') && v.at(i + 2) === 'not') return true;
      if (next === 'not' && (v.at(i + 2) === 'heard' || v.at(i + 2) === 'received' || v.at(i + 2) === 'got')) return true;
      continue;
    }
    if (w === 'waiting' && (prev === 'been' || next === 'since')) return true;
    if (w === 'heard' && (prev === 'not' || prev === 'never' || (prev === 'yet' && v.at(i - 2) === 'not'))) {
      if (next === 'from' && thirdParty(v, i + 2)) continue; // "I have not heard from him / from Carla"
      if (next === 'back' && v.at(i + 2) === 'from' && thirdParty(v, i + 3)) continue;
      if (next === 'back' || next === 'from' || next === 'anything' || next === 'a' || next === 'nothing') return true;
    }
    if (w === 'heard' && next === 'nothing') return true;
    if ((w === 'received' || w === 'got' || w === 'gotten' || w === 'had') && prev === 'not') {
      for (let k = i + 1; k <= i + 3; k++) if (REPLY_WORDS.has(v.at(k))) return true;
    }
    if (w === 'no' && (next === 'reply' || next === 'response' || next === 'answer' || next === 'word' || next === 'feedback')) {
      const after = v.at(i + 2);
      if (after !== 'to' && after !== 'address' && after !== 'email' && after !== 'needed' && after !== 'necessary') return true;
    }
    if (w === 'any' && (next === 'update' || next === 'updates' || next === 'news' || next === 'progress' || next === 'word' || next === 'luck')) {
      if (v.s.question || i === 0 || prev === CLAUSE || prev === 'hi' || prev === 'there' || prev === 'is') return true;
    }
    // "What's the status of the export?", "Any status on this?": a status question, asked up front.
    if (w === 'status' && (next === 'of' || next === 'on' || next === CLAUSE) && v.s.question && i <= 6) return true;
    if (w === 'checking' && (next === 'in' || next === 'back')) {
      // "checking in on the export", "just checking in.", "checking in to see if you got this";
      // not a social "checking in to see how you are".
      const a = v.at(i + 2);
      if (a === 'on' || a === 'about' || a === 'regarding' || a === 're' || a === CLAUSE || a === 'again') return true;
      if (a === 'to' && v.at(i + 3) === 'see' && (v.at(i + 4) === 'if' || v.at(i + 4) === 'whether')) return true;
    }
    if ((w === 'circling' || w === 'circle') && next === 'back' && !FUTURE.has(prev)) return true;
    if ((w === 'bumping' || w === 'bump') && prev !== 'a' && !FUTURE.has(prev)) return true;
    if (w === 'nudge' || w === 'nudging') return true;
    if (w === 'reminder' && REMINDER_MOD.has(prev)) return true;
    if (w === 'pinging' && !FUTURE.has(prev)) return true;
    if (w === 'ping' && next === 'again') return true;
    if (w === 'chasing' && next !== 'our' && next !== 'my') return true;
    if (w === 'resending' || (w === 'sending' && next === 'again') || (w === 'resend' && (next === 'this' || next === 'my'))) return true;
    if (w === 'sent' && (next === 'this' || next === 'it' || next === 'you')) {
      for (let k = i + 2; k <= i + 6; k++) if (v.at(k) === 'ago') return true;
    }
    if ((w === 'time' || w === 'times') && ORDINAL_TIME.has(prev)) {
      if (v.askVerb) return true;
    }
    if ((w === 'asking' || w === 'ask' || w === 'asked') && next === 'again') return true;
    if ((w === 'asked' || w === 'requested' || w === 'emailed' || w === 'written') && COUNT_TIMES.has(next) && v.at(i + 2).startsWith('time')) return true;
    // "sorry to chase", "chasing this up", "to chase this again"
    if (w === 'chase' && (next === 'this' || next === 'up' || next === 'again' || CHASE_APOLOGY.has(v.at(i - 2)))) return true;
    // "Have you had a chance to look at this?", "Did you get my last email?"
    if (v.s.question && w === 'chance' && v.at(i - 1) === 'a' && (v.at(i - 2) === 'had' || v.at(i - 2) === 'got')) return true;
    if (v.s.question && (w === 'get' || w === 'receive' || w === 'see' || w === 'got' || w === 'received') && v.at(i - 1) === 'you' && v.at(i + 1) === 'my') {
      for (let k = i + 2; k <= i + 4; k++) if (CHASE_OBJECTS.has(v.at(k)) && v.at(k) !== 'this') return true;
    }
    if (w === 'asked' && (next === 'twice' || next === 'repeatedly' || (ORDINAL_TIME.has(next) && v.at(i + 2).startsWith('time')))) return true;
    if (w === 'per' && v.at(i + 1) === 'my' && (v.at(i + 2) === 'previous' || v.at(i + 2) === 'last' || v.at(i + 2) === 'earlier')) return true;
    if (w === 'mentioned' && v.at(i + 1) === 'in' && v.at(i + 2) === 'my') return true;
    if ((w === 'anyone' || w === 'someone' || w === 'somebody' || w === 'anybody') && (v.s.question || prev === 'could' || prev === 'can')) {
      for (let k = i + 1; k <= i + 3; k++) {
        const x = v.at(k);
        if (x === 'respond' || x === 'reply' || x === 'answer' || x === 'looking' || x === 'there' || x === 'reading' || x === 'home') return true;
      }
    }
    if ((w === 'awaiting' || w === 'waiting') && (next === 'your' || next === 'a') && REPLY_WORDS.has(v.at(i + 2))) return true;
    if (w === 'waiting' && next === 'for' && (v.at(i + 2) === 'your' || v.at(i + 2) === 'a') && REPLY_WORDS.has(v.at(i + 3))) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Needs reply
// ---------------------------------------------------------------------------------------------

const PROBLEM_WORDS = set(
  'broken bug bugs error errors issue issues problem problems crash crashes crashed crashing outage outages failing ' +
    'fails failed failure failures missing wrong incorrect locked stuck slow timeout overcharged frustrated frustrating ' +
    'disappointed disappointing unacceptable annoyed complaint complain glitch glitches lost disappeared unusable ' +
    'inaccurate duplicated',
);
const LOOKS = set('look looks looked seem seems seemed is are was were');
/** Words after which "issue" is a verb ("will issue its order"). */
const VERB_BEFORE = set('will would shall should can could may might must to');
const RESOLVED = set('resolved fixed solved sorted works working gone fine fixing resolving');
const REQUEST_VERBS_AFTER_YOU = set('you we i it someone anyone');
const QUESTION_START = new Map<string, ReadonlySet<string>>([
  ['is', set('there it this that your the anyone someone')],
  ['are', set('there you we your the')],
  ['do', set('you we i')],
  ['does', set('it this that your the anyone')],
  ['can', REQUEST_VERBS_AFTER_YOU],
  ['could', REQUEST_VERBS_AFTER_YOU],
  ['would', set('you it')],
  ['will', set('you it there the')],
  ['should', set('we i')],
  ['any', set('chance update news idea thoughts')],
]);
const WH = set('what when where who whom why how which');
const WH_EXCLAMATION = set('a an nice great cool kind exciting lovely wonderful awesome fantastic');
const IMPERATIVE = set(
  'need send share forward provide confirm advise explain check look investigate fix update add remove reset extend cancel ' +
    'resend help call contact escalate refund credit change enable disable activate deactivate delete restore revert ' +
    'schedule book arrange review approve sign issue correct unlock tell clarify email ring',
);
/** "please find attached", "please note", "please excuse", "please understand that…": courtesy, not a request. */
const NOT_A_REQUEST_AFTER_PLEASE = set('find note see disregard ignore feel do enjoy excuse accept read plan be keep realize realise understand forgive bear');
/** "please call me at … if anything changes", "please contact me if …": the verbs of an offer to be reached. */
const REACH_ME = set('let reach contact call phone ring email');
const OPENERS = set('hi hello hey dear also and so pls plz please kindly but ok okay then one thing quick question');
const CLOSING_LET_ME_KNOW = set('need have there anything i we should you any other further more');
/** "let me know if you have any questions / need anything else / if we can be of further assistance": a closing. */
const CLOSING_NEEDS = set('anything questions question need help assistance else concerns comments feedback thoughts issues problems');
/** "if you need anything / more / help / assistance": what a closing offers; "if you need us to cancel" asks. */
const NEEDS_OF_A_CLOSING = set('anything more help assistance');
/**
 * "let me know if you disagree", "if this number is incorrect", "if anything changes": the reader
 * is to answer only if something is off, so the message does not wait for a reply.
 */
const OPT_OUT_CONDITIONS = set('disagree object objections incorrect wrong changes');
/** "… and kindly notify the sender", "if you are not the intended recipient": a confidentiality footer, not a request. */
const FOOTER_WORDS = set('sender recipient recipients consent');
/** "does not consent to Internet email": what a footer's consent is about. */
const FOOTER_MEDIA = set('internet email mail electronic communication communications');

/** "If you have any questions, please call me": a closing, not a request. */
function isClosingSentence(v: SentenceView): boolean {
  if (v.at(0) !== 'if' && !(v.at(0) === 'should' && v.at(1) === 'you')) return false;
  for (let k = 1; k <= 7; k++) if (CLOSING_NEEDS.has(v.at(k)) && v.at(k) !== 'need') return true;
  return false;
}

/**
 * Where the clause of a closing that starts at token i ends: its clause mark ("… if you have any
 * questions, but the export still fails"), or the sentence's end. The loop that calls it goes on
 * from the token after.
 */
function clauseEnd(v: SentenceView, i: number): number {
  let k = i;
  while (k < v.n && v.at(k) !== CLAUSE) k++;
  return k;
}

/** A sentence of a confidentiality footer: "notify the sender", "the intended recipient", "does not consent to Internet email". */
function isFooterSentence(v: SentenceView): boolean {
  for (let i = 0; i < v.n; i++) {
    const w = v.at(i);
    if (!FOOTER_WORDS.has(w)) continue;
    if (w === 'sender' && (v.at(i - 2) === 'notify' || v.at(i - 1) === 'notify' || v.at(i - 2) === 'inform' || v.at(i - 2) === 'contact')) return true;
    if ((w === 'recipient' || w === 'recipients') && v.at(i - 1) === 'intended') return true;
    if (w === 'consent') for (let k = i + 1; k <= i + 3; k++) if (FOOTER_MEDIA.has(v.at(k))) return true;
  }
  return false;
}

function needsReplyIn(v: SentenceView): boolean {
  const t = v.t;
  if (isClosingSentence(v) || isFooterSentence(v)) return false;
  if (v.s.question) {
    // "How are you?" and similar pleasantries expect no answer.
    const first = v.at(0);
    if (!(v.n <= 4 && (first === 'how' || first === 'hope'))) return true;
  }
  // Question or imperative at the start of the sentence (after a greeting / "please").
  let s = 0;
  while (s < v.n && (OPENERS.has(t[s] as string) || t[s] === CLAUSE || v.isName(s) || (s === 1 && t[0] === 'hi'))) {
    if (t[s] === 'please' || t[s] === 'kindly' || t[s] === 'pls' || t[s] === 'plz') break;
    s++;
  }
  const first = v.at(s);
  const second = v.at(s + 1);
  if (QUESTION_START.get(first)?.has(second)) return true;
  if (WH.has(first) && !WH_EXCLAMATION.has(second) && second !== CLAUSE) return true;
  if (IMPERATIVE.has(first) && s < v.n) return true;
  for (let i = 0; i < v.n; i++) {
    const w = t[i] as string;
    const next = v.at(i + 1);
    const prev = v.at(i - 1);
    if (w === 'please' || w === 'kindly' || w === 'pls' || w === 'plz') {
      // "please find attached", "please note", "please let me know if you need anything" are not requests.
      if (NOT_A_REQUEST_AFTER_PLEASE.has(next) || next === CLAUSE) continue;
      if (REACH_ME.has(next) && isClosingLetMeKnow(v, i + 1)) {
        // Its condition ("if this number is incorrect") is the reader's, not a problem of theirs.
        i = clauseEnd(v, i);
        continue;
      }
      if (v.neg[i] || prev === 'do') continue;
      return true;
    }
    if (w === 'let' && (next === 'me' || next === 'us') && v.at(i + 2) === 'know') {
      if (!isClosingLetMeKnow(v, i)) return true;
      i = clauseEnd(v, i);
      continue;
    }
    if ((w === 'can' || w === 'could' || w === 'would' || w === 'will') && next === 'you' && v.at(i + 2) !== 'imagine' && v.at(i + 2) !== 'believe') {
      if (!v.neg[i] && v.at(i - 1) !== 'if') return true;
    }
    if (w === 'possible' && (prev === 'be' || prev === 'is') && v.at(i - 2) !== 'not') return true;
    if ((w === 'know' && (prev === 'to' || prev === 'like')) || w === 'wondering' || w === 'wonder' || w === 'curious') {
      // "I'm curious to see how he handles it" is a remark; "I'm curious whether…" asks.
      if (w === 'curious' && next === 'to' && v.at(i + 2) === 'see') continue;
      if (!v.neg[i]) return true;
    }
    if ((w === 'need' || w === 'needs') && (prev === 'we' || prev === 'i' || prev === 'still' || prev === 'urgently') && !v.neg[i]) {
      if (next !== 'anything' && next !== 'nothing') return true;
    }
    if ((w === 'need' || w === 'want') && next === 'you' && v.at(i + 2) === 'to') return true;
    if (w === 'appreciate' && !v.neg[i]) {
      // "we'd appreciate a call", "would appreciate it if"; not "appreciate the quick turnaround".
      if (prev === 'would' || next === 'a' || next === 'an' || next === 'if') return true;
      for (let k = i + 1; k <= i + 4; k++) if (v.at(k) === 'if') return true;
    }
    // "it keeps logging me out", "the sync keeps failing"
    if ((w === 'keeps' || w === 'kept') && next.endsWith('ing') && !v.neg[i]) return true;
    if (w === 'asap' || w === 'urgent' || w === 'urgently') return true;
    if (w === 'advise' || w === 'confirm') {
      // "This e-mail is to confirm our call at 9": it confirms, it does not ask us to.
      if (prev === 'to' && v.at(i - 2) === 'is') continue;
      if (prev === 'please' || prev === 'kindly' || prev === 'to' || prev === 'you') return true;
    }
    if (isProblemAt(v, i)) return true;
  }
  return false;
}

/**
 * "let me know if you need anything / have any questions", "please call me at … if anything
 * changes", "let me know if you disagree" close a message or offer to be reached; "let me know
 * when", "let me know if you can meet" ask. `i`: the reach verb ("let", "call", "contact"…).
 */
function isClosingLetMeKnow(v: SentenceView, i: number): boolean {
  // The condition starts within a few words of the verb: "let me know if", "call me at 713/256-8499 if".
  let k = i + 1;
  while (k < v.n && k <= i + 8 && v.at(k) !== 'if' && v.at(k) !== 'should' && v.at(k) !== 'in') {
    if (v.at(k) === 'know' && v.at(k + 1) === CLAUSE) return true; // "let me know, thanks"
    k++;
  }
  const a = v.at(k);
  if (a !== 'if' && a !== 'should' && a !== 'in') return false;
  for (let j = k + 1; j <= k + 6; j++) {
    const x = v.at(j);
    if (x === CLAUSE) break;
    if (OPT_OUT_CONDITIONS.has(x)) return true;
    if (CLOSING_NEEDS.has(x)) {
      // "let me know if you need us to cancel ...": a request of us (ask first), but "if you need anything else" is a closing.
      if (x === 'need' && !NEEDS_OF_A_CLOSING.has(v.at(j + 1)) && v.at(j + 1) !== CLAUSE) return false;
      return true;
    }
    // "if you have any …", "if there are any other topics you wish to discuss".
    if (x === 'any' && (v.at(j - 1) === 'have' || v.at(j - 1) === 'are' || v.at(j - 1) === 'is')) return true;
    if (CLOSING_LET_ME_KNOW.has(x)) continue;
  }
  return false;
}

/** A complaint or a problem report at i, not negated ("no issues") and not resolved ("the issue is resolved"). */
function isProblemAt(v: SentenceView, i: number): boolean {
  const w = v.at(i);
  const next = v.at(i + 1);
  let hit = false;
  if (PROBLEM_WORDS.has(w)) hit = true;
  else if (
    w === 'not' &&
    (next === 'working' ||
      next === 'work' ||
      next === 'load' ||
      next === 'loading' ||
      next === 'sync' ||
      next === 'syncing' ||
      next === 'showing' ||
      next === 'show' ||
      next === 'receive' ||
      next === 'received')
  )
    hit = true;
  else if (w === 'stopped' && (next === 'working' || next === 'syncing' || next === 'at' || next === 'loading')) hit = true;
  else if ((w === 'charged' || w === 'billed') && (next === 'twice' || next === 'double')) hit = true;
  else if (w === 'down' && (v.at(i - 1) === 'is' || v.at(i - 1) === 'was' || v.at(i - 1) === 'been' || v.at(i - 1) === 'went' || v.at(i - 1) === 'goes'))
    hit = true;
  else if (w === 'nothing' && v.at(i - 1) === 'does') hit = true;
  else if (w === 'off' && LOOKS.has(v.at(i - 1)) && next === CLAUSE) hit = true;
  else if (
    w === 'not' &&
    v.at(i - 1) === 'can' &&
    // "I know you can't right now": about the reader, not a fault ("you can't export more than 100 rows" is one).
    !(v.at(i - 2) === 'you' && (next === 'right' || next === 'now' || next === CLAUSE)) &&
    next !== 'thank' &&
    next !== 'wait' &&
    next !== 'recommend' &&
    next !== 'believe' &&
    next !== 'help' // "I can't help myself", "can't help but…"
  )
    hit = true;
  else if (w === 'unable' || w === 'nobody' || (w === 'no' && next === 'one' && v.at(i + 2) === 'has')) hit = true;
  if (!hit) return false;
  // "FERC will issue its order", "we plan to issue a credit": the verb, not a problem.
  if (w === 'issue' && VERB_BEFORE.has(v.at(i - 1))) return false;
  if (v.neg[i] && w !== 'not') return false;
  if (v.hypothetical(i)) return false;
  // Resolved in the same clause: "the issue is resolved", "fixed every bug".
  for (let k = Math.max(0, i - 3); k <= Math.min(v.n - 1, i + 4); k++) {
    const x = v.at(k);
    if (x === CLAUSE && k > i) break;
    if (RESOLVED.has(x)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

function quote(text: string, s: Sentence): string {
  let out = '';
  let space = false;
  // Collapse runs of white space (wrapped lines, CRLF) to one space.
  for (let i = s.start; i < s.end && out.length <= MAX_SENTENCE; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      space = out.length > 0;
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += text[i];
  }
  out = out.trim();
  if (out.length > MAX_SENTENCE) {
    let cut = MAX_SENTENCE;
    const c = out.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--; // do not split a surrogate pair
    out = out.slice(0, cut).trimEnd();
  }
  return out;
}

/**
 * Detects churn intent, a chaser and whether a reply is expected in a client's own new text (the
 * caller strips quotes and signatures first). Pure, synchronous, never throws on a string, and
 * linear in the text: only the first 20,000 characters are read.
 */
export function detectSignals(text: string): TextSignals {
  if (typeof text !== 'string' || text.length === 0) {
    return { churnIntent: false, followUp: false, needsReply: false, bits: 0, churnSentence: null };
  }
  const capped = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  let churnSentence: string | null = null;
  let followUp = false;
  let needsReply = false;
  for (const s of splitSentences(capped)) {
    const v = new SentenceView(s);
    if (churnSentence === null) {
      for (let i = 0; i < v.n; i++) {
        if (churnAt(v, i)) {
          churnSentence = quote(capped, s);
          break;
        }
      }
    }
    if (!followUp) followUp = followUpIn(v);
    if (!needsReply) needsReply = needsReplyIn(v);
  }
  const churnIntent = churnSentence !== null;
  needsReply = needsReply || churnIntent || followUp;
  const bits = (churnIntent ? SIGNAL_BITS.churnIntent : 0) | (followUp ? SIGNAL_BITS.followUp : 0) | (needsReply ? SIGNAL_BITS.needsReply : 0);
  return { churnIntent, followUp, needsReply, bits, churnSentence };
}
