/**
 * Personal or business: does a message's own text read like a note between friends or family
 * (weekend plans, a game, a party, jokes, dating, kids) rather than work? Mail between people at
 * company addresses is not always business: a friend writing from the office is not a client.
 * Only a message that reads clearly personal — several personal markers and more of them than
 * work markers — counts as personal; anything else (including nothing to go on) is business.
 * Linear: one pass of two word-boundary regexes over at most the first 4,000 characters.
 */
import type { Topic } from '../resolve/discovery.js';

const SCAN = 4000;

const PERSONAL =
  /\b(?:weekend|saturday|sunday|friday night|tonight|party|parties|birthday|wedding|bachelor(?:ette)?|honeymoon|beers?|drinks|drinking|bar|pub|happy hour|hangover|dinner|bbq|barbe?cue|golf|fishing|hunting|elk|deer|ski(?:ing)?|camping|football|basketball|baseball|softball|soccer|hockey|game|games|tailgate|tickets?|concert|movie|movies|vacation|girlfriend|boyfriend|wife|husband|hubby|kids?|baby|babies|mom|dad|mother|father|sister|brother|family|grandma|grandpa|church|pregnant|dating|date|cute|love|miss you|hugs?|kisses|xoxo|lol|haha+|hehe|ha ha|joke|jokes|funny|hilarious|chain letter|forward this|pictures|photos|pics|puppy|dog|cat|house|apartment|rent|roommate|christmas|thanksgiving|holiday|santa|beach|lake|cabin|trip|ducks|beavers|pool picks|picks|fantasy|bet|vote|election|prayer|pray|god bless|congrats|congratulations|hey|dude|buddy|man)\b|[:;]-?[)D(P]/gi;

const BUSINESS =
  /\b(?:contract|agreement|invoice|proposal|price|pricing|prices|quote|deal|deals|order|orders|delivery|deliveries|meeting|project|report|reports|account|accounts|payment|payments|transaction|transactions|trade|trades|trading|mw|mwh|mmbtu|dth|gas|power|capacity|audit|auditors?|plan|document|documents|draft|review|approve|approval|client|customer|customers|service|services|support|product|products|software|license|renewal|subscription|implementation|deadline|budget|forecast|attached|attachment|spreadsheet|schedule|scheduling|tariff|filing|regulatory|ferc|iso|settlement|settlements|market|markets|volume|volumes|counterparty|credit|legal|counsel|compliance|procedure|procedures|request|requests|issue|issues|resolution|update|status|team|company|business|office|conference call|call|presentation|analysis|data|system|systems|process|risk|valuation|position|positions|curve|curves|desk|index|hedge|offer|bid|bids|rfp|vendor|vendors|purchase|po|billing|cost|costs|revenue|sales|marketing|regards|sincerely)\b/gi;

export type MessageTopic = Topic;

/**
 * What a message's subject and own text are about: `work` when at least two different work
 * words outnumber the personal markers, `personal` when at least two different personal markers
 * outnumber the work words, else `unclear` (a one-line "sounds good", "closing?").
 */
export function messageTopic(subject: string, text: string): MessageTopic {
  const t = `${subject}\n${text.length > SCAN ? text.slice(0, SCAN) : text}`;
  const personal = new Set<string>();
  for (const m of t.matchAll(PERSONAL)) personal.add(m[0].toLowerCase());
  const work = new Set<string>();
  for (const m of t.matchAll(BUSINESS)) work.add(m[0].toLowerCase());
  if (work.size >= 2 && work.size > personal.size) return 'work';
  if (personal.size >= 2 && personal.size > work.size) return 'personal';
  return 'unclear';
}
