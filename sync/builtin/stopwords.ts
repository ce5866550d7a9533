/**
 * Words that are never a name: English function words, the verbs and nouns of questions about
 * this data, and time words. What is left of a message once these (and the cue words, statuses,
 * dates and ids) are taken out is read as a name to look up (names.ts).
 */
const WORDS = `
a about above across after again against ago all almost alone along already also although always am among an
and another any anybody anyone anything anyway anywhere are around as ask asked asking at away back be because
been before behind being below between both but by can cannot could did do does doing done down during each
either else enough even ever every everybody everyone everything except few for from further get gets getting
give given gives go goes going gone got had has have having he her here hers herself him himself his how however
i if in into is it its itself just keep kind know known last least less let like likely made make many may me
might mine more most much must my myself near need needs neither never new next no nobody none nor not nothing
now of off often old on once one only or other others our ours ourselves out over own per perhaps please
quite rather really right same say says see seem seems several shall she should show showing shown since so
some somebody someone something sometimes soon still such sure tell than that the their theirs them
themselves then there these they thing things this those though through thus to together too toward towards
under until up upon us use used very via want wants was way we well were what whatever when whenever where
whether which while who whole whom whose why will with within without would yes yet you your yours yourself
lot lots bit okay ok hey hi hello thanks thank cheers yeah yep nope
list lists listed display find search look looking lookup pull bring check see view open opened give
current currently latest recent recently newest oldest first second third fourth fifth sixth seventh eighth
ninth tenth top bottom biggest largest smallest best worst highest lowest total totals sum count number numbers
amount amounts value values worth money figure figures how many much
invoice invoices bill bills billing payment payments product products contact contacts deal deals candidate
candidates skill skills communication communications record records client clients customer customers company
companies person people everyone anybody status statuses stage stages detail details info information data
email emails mail phone phones mobile address addresses name names title position role source level note notes
today yesterday tomorrow day days week weeks month months year years quarter quarters hour hours time date dates
morning afternoon evening night weekend weekends fortnight ytd mtd
monday tuesday wednesday thursday friday saturday sunday
january february march april may june july august september october november december
jan feb apr jun jul aug sep sept oct nov dec
zero one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty ninety hundred
thousand couple
eur usd gbp euro euros dollar dollars pound pounds currency currencies
yes no true false please pls plz kindly
u ur r ya yall thx ty
each per every all both either any
mark set move change update create add new void cancel record log delete remove verify confirm reject hire
edit fix correct modify rename replace advance push progress bump put shift enter book register approve
validate decline invite schedule screen promote erase wipe drop purge destroy clear close apply insert save
archive send refund issue called named call
sync tessera assistant bot
as is are be been was were being am do does did doing have has had having
we our us i me my you your they them their it its he she his her
`;

export const STOPWORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter(Boolean));
