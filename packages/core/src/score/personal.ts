/**
 * What a message is about, for who becomes a client (resolve/discovery.ts): work, a personal note
 * (weekend plans, a game, a party, jokes, dating, kids: a friend writing from the office is not
 * his employer talking to us), a cold sales pitch (a vendor asking for "15 minutes next week",
 * "bumping this to the top of your inbox"), or unclear. Linear: one pass of each word-boundary
 * regex over at most the first 1,200 characters (the topic shows in the opening lines).
 */
import type { Topic } from '../resolve/discovery.js';

const SCAN = 1200;

/**
 * The phrases of cold outreach: asking a stranger for a slot, chasing an unanswered pitch, the
 * opt-out line a sequence tool adds. Two different ones make a message a pitch, unless it speaks
 * of something we already share (RELATIONSHIP): a client asking for "15 minutes to go over the
 * renewal and the invoice" is not one.
 */
/** What only an existing relationship talks about: our contract, invoices, renewals, tickets, outages. */
const RELATIONSHIP =
  /\b(?:renewals?|renew|invoices?|billing|refund|(?:our|your) (?:account|contract|subscription|plan|licen[cs]es?|seats|integration|instance)|tickets?|outages?|downtime|bugs?|not working|broken|cancel(?:l?ing|l?ed)?|onboarding call|kick-?off)\b/i;

const PITCH = new RegExp(
  [
    '(?:15|fifteen|20|twenty|30|thirty)[- ](?:min(?:ute)?s?)\\b',
    '(?:quick|short|brief) (?:call|chat|demo|look|intro)',
    'book (?:a )?(?:time|slot|call|meeting|demo)',
    'worth a (?:quick )?(?:chat|call|look|conversation)',
    'circling back',
    'bumping (?:this|it)',
    'floating this',
    'top of your inbox',
    'in case (?:it|this) (?:slipped|got buried|fell)',
    "timing (?:is|isn['’]t) (?:better|right)",
    'one last time',
    'last note from me',
    "haven['’]t heard back",
    '(?:my|our) previous (?:note|e-?mail|message)',
    '(?:rather|prefer) not (?:to )?(?:hear from|receive)',
    'take you off (?:my|our) list',
    "(?:won['’]t|will not) (?:reach out|follow up|email you|bother you)",
    'stop reaching out',
    'close the loop',
    'not the right person',
    '(?:i|we) help(?:ed)? (?:companies|teams) like',
    'teams like yours',
    '(?:i|we) noticed (?:that )?(?:your|you)',
    "(?:glad|happy|love|i['’]d love) to (?:walk you through|show you|share|connect|send|jump on)",
    'send (?:you )?(?:over )?(?:the|a|our) (?:prospectus|deck|case study|one-pager|video)',
    'early(?:-bird| bird)? pricing',
    'sponsorship (?:options|opportunit|packages?)',
    // A marketing call to action: "To try our portal free for 30 days, just reply with the word YES".
    '(?<=^|[.!?:\\n]\\s?)to try our',
    'free trial',
    'reply (?:to this (?:e-?mail|message) )?(?:and (?:put|type) |with )(?:the word )?["“\']?yes\\b',
  ].join('|'),
  'gi',
);

const PERSONAL =
  /\b(?:weekend|saturday|sunday|friday night|tonight|party|parties|birthday|wedding|bachelor(?:ette)?|honeymoon|beers?|drinks|drinking|bar|pub|happy hour|hangover|dinner|bbq|barbe?cue|golf|fishing|hunting|elk|deer|ski(?:ing)?|camping|football|basketball|baseball|softball|soccer|hockey|game|games|tailgate|tickets?|concert|movie|movies|vacation|girlfriend|boyfriend|wife|husband|hubby|kids?|baby|babies|mom|dad|mother|father|sister|brother|family|grandma|grandpa|church|pregnant|dating|date|cute|love|miss you|hugs?|kisses|xoxo|lol|haha+|hehe|ha ha|joke|jokes|funny|hilarious|chain letter|forward this|pictures|photos|pics|puppy|dog|cat|house|apartment|rent|roommate|christmas|thanksgiving|holiday|santa|beach|lake|cabin|trip|ducks|beavers|pool picks|picks|fantasy|bet|vote|election|prayer|pray|god bless|congrats|congratulations|hey|dude|buddy|man|congrat\w*|how are things|how are you|how(?:'s| is) (?:the family|it going|life)|hope (?:things are|all is|you are|you're) (?:going )?well|drop you a line|catch up|long weekend|itinerar(?:y|ies))\b|[:;]-?[)D(P]/gi;

const BUSINESS =
  /\b(?:contract|agreement|invoice|proposal|price|pricing|prices|quote|deal|deals|order|orders|delivery|deliveries|meeting|project|report|reports|account|accounts|payment|payments|transaction|transactions|trade|trades|trading|mw|mwh|mmbtu|dth|gas|power|capacity|audit|auditors?|plan|document|documents|draft|review|approve|approval|client|customer|customers|service|services|support|product|products|software|license|renewal|subscription|implementation|deadline|budget|forecast|attached|attachment|spreadsheet|schedule|scheduling|tariff|filing|regulatory|ferc|iso|settlement|settlements|market|markets|volume|volumes|counterparty|credit|legal|counsel|compliance|procedure|procedures|request|requests|issue|issues|resolution|update|status|team|company|business|office|conference call|call|presentation|analysis|data|system|systems|process|risk|valuation|position|positions|curve|curves|desk|index|hedge|offer|bid|bids|rfp|vendor|vendors|purchase|po|billing|cost|costs|revenue|sales|marketing|regards|sincerely|q[1-4]|fy\d{2,4}|quarter(?:ly)?)\b/gi;

export type MessageTopic = Topic;

/**
 * What a message's subject and own text are about: `work` when at least two different work
 * words outnumber the personal markers, `personal` when at least two different personal markers
 * outnumber the work words, else `unclear` (a one-line "sounds good", "closing?").
 */
export function messageTopic(subject: string, text: string): MessageTopic {
  const t = `${subject}\n${text.length > SCAN ? text.slice(0, SCAN) : text}`;
  const pitch = new Set<string>();
  for (const m of t.matchAll(PITCH)) pitch.add(m[0].toLowerCase().replace(/\s+/g, ' '));
  const personal = new Set<string>();
  for (const m of t.matchAll(PERSONAL)) personal.add(m[0].toLowerCase());
  const work = new Set<string>();
  for (const m of t.matchAll(BUSINESS)) work.add(m[0].toLowerCase());
  // A client asking to "book 15 minutes on the renewal and the invoice" speaks of what we already
  // share; a pitch speaks only of what the sender sells.
  if (pitch.size >= 2 && !RELATIONSHIP.test(t)) return 'pitch';
  if (work.size >= 2 && work.size > personal.size) return 'work';
  if (personal.size >= 2 && personal.size > work.size) return 'personal';
  return 'unclear';
}
