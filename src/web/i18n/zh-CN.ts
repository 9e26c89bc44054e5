// Every string the web app shows before anyone signs in (/login and /register, the frame, the client's failures), in
// one place; words only signed-in screens show are beside it, in ./zh-CN-signed-in.ts. Another language is one more
// module of each shape.

export const zhCN = {
  http: {
    400: '请求参数错误（400）',
    401: '未登录或登录已过期（401）',
    403: '没有权限访问（403）',
    404: '请求的资源不存在（404）',
    500: '服务器异常，请联系管理员（500）',
    502: '网关错误，请稍后再试（502）',
    503: '服务暂时不可用，请稍后再试（503）',
  } as Record<number, string>,
  requestAborted: 'Request aborted',
  /** What a user sees instead of a server message that must never reach them. */
  fetchFailedTryLater: '获取失败，稍后再试',
  genericFailure: (status: number, statusText: string) => `请求失败（${status}${statusText ? ` ${statusText}` : ''}）`,
  networkError: '网络连接失败，请检查网络后重试',

  shell: {
    loading: '加载中...',
    logout: '退出',
    back: '返回',
    ok: '确定',
    cancel: '取消',
    chat: '公告',
    tabs: { home: '首页', mall: '积分商城', hub: '信息中台', me: '我的' },
    comingSoon: '功能即将开放',
    comingSoonHint: '这个页面的功能正在开发中，开放后会在这里使用。',
    forbidden: '没有权限访问这个页面',
    forbiddenHint: '当前账号不能使用这个页面，请返回首页。',
    notFound: '页面不存在',
    notFoundHint: '链接可能已失效，请返回首页。',
    goHome: '返回首页',
    retry: '重试',
    loadFailed: '加载失败',
  },
  auth: {
    account: '账号',
    accountPlaceholder: '4–16 位字母、数字或下划线',
    password: '密码',
    passwordPlaceholder: '8–32 位字母、数字或符号',
    checkPassword: '确认密码',
    checkPasswordPlaceholder: '再输入一次密码',
    invitationCode: '邀请码（选填）',
    invitationCodePlaceholder: '8 位邀请码',
    login: '登录',
    register: '注册',
    toRegister: '没有账号？去注册',
    toLogin: '已有账号？去登录',
    registered: '注册成功，请登录',
    registeredIn: '注册成功，已为你登录',
    loggedOut: '已退出登录',
    required: (field: string) => `请填写${field}`,
    accountRule: '账号为 4–16 位字母、数字或下划线',
    passwordRule: '密码为 8–32 位字母、数字或英文符号',
    passwordMismatch: '两次输入的密码不一致',
    invitationRule: '邀请码是 8 位字母或数字',
    secondStep: '两步验证',
    secondStepHint: '打开验证器，输入显示的 6 位验证码；手机不在身边时可以输入一个恢复码。',
    code: '验证码或恢复码',
    codePlaceholder: '6 位验证码，或恢复码如 k7p2m-9qxab',
    codeRule: '请输入 6 位数字验证码，或 10 位恢复码',
    verify: '验证并登录',
    backToPassword: '返回重新输入密码',
    withPasskey: '使用通行密钥登录',
    passkeyCancelled: '已取消通行密钥登录',
    passkeyFailed: '这台设备没能完成通行密钥登录，请重试或用密码登录',
  },
};

export type Messages = typeof zhCN;
export const messages: Messages = zhCN;
