/**
 * Internet service providers and consumer mail services whose addresses are people's own, not a
 * company's, and that the free-mail lists (`free-email-domains`, `email-providers`) miss: mostly
 * the dial-up, cable and DSL providers of 1995–2010 (old mailboxes are full of them) and the
 * mail domains of today's telecoms. Registrable domains; a subdomain (austin.rr.com) folds into
 * its registrable domain before the look-up. Written from public knowledge of who ran consumer
 * mail, not from any one mailbox.
 */
export const ISP_DOMAINS: readonly string[] = [
  // National US providers (dial-up, cable, DSL) and their mail domains.
  'aol.com', 'att.net', 'attbi.com', 'attglobal.net', 'bellatlantic.net', 'bellsouth.net', 'cableone.net', 'centurylink.net',
  'centurytel.net', 'charter.net', 'comcast.net', 'compuserve.com', 'concentric.net', 'cox.net', 'earthlink.net', 'embarqmail.com',
  'email.com', 'excite.com', 'frontier.com', 'frontiernet.net', 'gte.net', 'home.com', 'ix.netcom.com', 'juno.com', 'mediaone.net',
  'mindspring.com', 'msn.com', 'netcom.com', 'netscape.net', 'netzero.com', 'netzero.net', 'onemain.com', 'optonline.net',
  'pacbell.net', 'peoplepc.com', 'prodigy.net', 'qwest.net', 'rcn.com', 'rr.com', 'sbcglobal.net', 'snet.net', 'sprintmail.com',
  'swbell.net', 'uswest.net', 'uswestmail.net', 'verizon.net', 'webtv.net', 'worldnet.att.net', 'wowway.com', 'adelphia.net',
  'insightbb.com', 'knology.net', 'mchsi.com', 'suddenlink.net', 'twc.com', 'windstream.net', 'ameritech.net', 'flash.net',
  'erols.com', 'ziplink.net', 'ultranet.com', 'epix.net', 'voyager.net', 'localnet.com', 'fuse.net', 'iquest.net',
  'nyc.rr.com', 'cfl.rr.com', 'tampabay.rr.com', 'austin.rr.com', 'houston.rr.com', 'mindspring.net', 'megsinet.net',
  'ispchannel.com', 'bluemarble.net', 'bigplanet.com', 'freei.net', 'freeinternet.com', 'altavista.com', 'lycos.com', 'iname.com',
  'usa.net', 'mailcity.com', 'hotbot.com', 'angelfire.com', 'geocities.com', 'xoom.com', 'bigfoot.com', 'talk21.com',
  // Texas, Gulf Coast and South-West regional providers.
  'airmail.net', 'ev1.net', 'hal-pc.org', 'io.com', 'neosoft.com', 'pdq.net', 'texas.net', 'txucom.net', 'wt.net', 'hic.net',
  'flex.net', 'insync.net', 'phoenix.net', 'sat.net', 'cs.com', 'gvtc.com', 'kc.rr.com', 'wf.net', 'cyberramp.net',
  'tstar.net', 'ghg.net', 'dallas.net', 'connect.net', 'onramp.net', 'why.net', 'nol.net', 'lubbock.net',
  'apex2000.net', 'infohwy.com', 'cox-internet.com', 'ntelos.net', 'cableaz.com', 'goodnet.com', 'primenet.com',
  // Pacific North-West and California regional providers.
  'aracnet.com', 'cdsnet.net', 'easystreet.com', 'europa.com', 'hevanet.com', 'jps.net', 'olypen.com', 'oregontrail.net',
  'pacifier.com', 'peak.org', 'proaxis.com', 'spiritone.com', 'teleport.com', 'transport.com', 'integrityonline.com', 'gorge.net',
  'bendcable.com', 'bendnet.com', 'coinet.com', 'cyberhighway.net', 'eoni.com', 'harborside.com', 'internetcds.com', 'orednet.org',
  'pioneer.net', 'rio.com', 'televar.com', 'uswest.net', 'wasatch.com', 'seanet.com', 'nwlink.com', 'halcyon.com', 'eskimo.com',
  'oz.net', 'speakeasy.net', 'wolfenet.com', 'premier1.net', 'aa.net', 'accessone.com', 'blarg.net', 'cnw.com', 'drizzle.com',
  'slip.net', 'best.com', 'netcom.ca', 'wco.com', 'sirius.com', 'hooked.net', 'crl.com',
  'idiom.com', 'lanminds.com', 'ncal.verio.com', 'sonic.net', 'inreach.com', 'ricochet.net', 'quiknet.com', 'cwnet.com',
  'garlic.com', 'ix.net', 'pcmagic.net', 'pe.net', 'earthling.net', 'thegrid.net', 'cruzio.com', 'calweb.com', 'psyber.com',
  // Mountain, Mid-West, East and South providers.
  'rmi.net', 'csd.net', 'aros.net', 'xmission.com', 'inficad.com', 'indy.net', 'iglou.com', 'mwci.net',
  'netins.net', 'ionet.net', 'galstar.com', 'tri-lakes.net', 'mnsi.net', 'bright.net', 'nauticom.net', 'voicenet.com',
  'erols.net', 'his.com', 'clark.net', 'tidalwave.net', 'mindspring.org', 'ipass.net', 'mailexcite.com', 'interaccess.com',
  'enteract.com', 'mcs.com', 'xnet.com', 'iquest.com', 'tiac.net', 'world.std.com', 'shore.net', 'ici.net', 'naxs.com',
  'dca.net', 'hiwaay.net', 'mindspring.co', 'bham.rr.com', 'tds.net', 'ruralnet.net',
  // Canada, the UK, Europe and Asia-Pacific consumer providers.
  'sympatico.ca', 'shaw.ca', 'rogers.com', 'telus.net', 'videotron.ca', 'cogeco.ca', 'bellnet.ca', 'interlog.com',
  'btinternet.com', 'blueyonder.co.uk', 'ntlworld.com', 'virgin.net', 'tiscali.co.uk', 'talktalk.net', 'sky.com', 'orange.fr',
  'wanadoo.fr', 'free.fr', 'laposte.net', 'sfr.fr', 't-online.de', 'gmx.de', 'web.de', 'arcor.de', 'freenet.de', 'libero.it',
  'virgilio.it', 'tin.it', 'alice.it', 'telefonica.net', 'terra.es', 'bigpond.com', 'bigpond.net.au', 'optusnet.com.au',
  'iinet.net.au', 'xtra.co.nz', 'nifty.com', 'so-net.ne.jp', 'biglobe.ne.jp', 'ocn.ne.jp', 'hanmail.net', 'naver.com',
  // Phone carriers' mail and SMS gateways.
  'vtext.com', 'txt.att.net', 'tmomail.net', 'messaging.sprintpcs.com', 'mobile.att.net', 'pagenet.net', 'skytel.com',
  'palm.net', 'mobile.mycingular.com', 'cingularme.com', 'myairmail.com',
];
