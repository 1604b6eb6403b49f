/**
 * Script-injection attempts an imported transcript or a model reply might
 * carry, in markdown and raw HTML: both renderers (the app's react-markdown and
 * the HTML export's unified pipeline) must turn every one into inert output.
 */
export const XSS_PAYLOADS: string[] = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<img src="x" onerror="alert(1)"/>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="data:text/html,<script>alert(1)</script>">',
  '<a href="javascript:alert(1)">click</a>',
  '<a href="jav&#x09;ascript:alert(1)">tab</a>',
  '<a href=" javascript:alert(1)">space</a>',
  '<div onclick="alert(1)">div</div>',
  '<body onload=alert(1)>',
  '<input autofocus onfocus=alert(1)>',
  '<details open ontoggle=alert(1)>',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<style>body{background:url("javascript:alert(1)")}</style>',
  '<link rel=stylesheet href="javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '[markdown link](javascript:alert(1))',
  '[entity link](javascript&#58;alert(1))',
  '[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![image](javascript:alert(1))',
  '[vb](vbscript:msgbox(1))',
  '<javascript:alert(1)>',
  '```html\n</code></pre><script>alert(1)</script>\n```',
  '<p style="background:url(javascript:alert(1))">styled</p>',
  '"><script>alert(1)</script>',
];
